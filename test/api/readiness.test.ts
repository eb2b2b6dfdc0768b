import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import { startMetricsServer } from '../../src/http/metrics-server.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * Readiness and node metrics against real nodes: two Tron devnets at different heights on mainnet, and a
 * closed port on testnet. The EVM chains keep their public defaults, unreachable here and not required.
 */
let ahead: TronDevnet;
let behind: TronDevnet;
// Port 1: nothing listens there, and unlike a freed port no other test's server can take it meanwhile.
const dead = 'http://127.0.0.1:1';
const gateways: TestGateway[] = [];

async function gateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const gw = await startGateway({
    env: {
      TRON_MAINNET_URLS: `${ahead.url},${behind.url}`,
      TRON_TESTNET_URLS: dead,
      NODE_TIMEOUT_MS: '1000',
      ...env,
    },
  });
  gateways.push(gw);
  return gw;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

beforeAll(async () => {
  [ahead, behind] = await Promise.all([
    startTronDevnet({ blockIntervalMs: null }),
    startTronDevnet({ blockIntervalMs: null }),
  ]);
  await ahead.mine(5);
});

afterAll(async () => {
  await Promise.all(gateways.map((gw) => gw.close()));
  await Promise.all([ahead?.close(), behind?.close()]);
});

describe('/readyz', () => {
  it('claims no node is up before the first probe, then reports each endpoint and fails on a required dead chain', async () => {
    const gw = await gateway();
    const before = await gw.request('GET', '/readyz');
    expect(before.status).toBe(503);
    const mainnetBefore = before.body.data.chains.find(
      (c: { chain: string; network: string }) => c.chain === 'tron' && c.network === 'mainnet',
    );
    expect(mainnetBefore.reachable).toBe(false);
    for (const endpoint of mainnetBefore.endpoints)
      expect(endpoint).toMatchObject({ up: false, checkedAt: null });

    await gw.ctx.nodeMonitor.probeAll();
    const res = await gw.request('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      status: 503,
      ok: false,
      errors: [{ field: 'tron:testnet', message: 'no reachable node' }],
      data: { ready: false, database: { up: true } },
    });
    const tron = (network: string) =>
      res.body.data.chains.find(
        (c: { chain: string; network: string }) => c.chain === 'tron' && c.network === network,
      );
    expect(tron('mainnet')).toMatchObject({ required: true, reachable: true });
    const [first, second] = tron('mainnet').endpoints;
    expect(first).toMatchObject({ endpoint: hostOf(ahead.url), up: true, lag: 0, error: null });
    expect(second).toMatchObject({ endpoint: hostOf(behind.url), up: true, lag: 5 });
    expect(first.height - second.height).toBe(5);
    expect(first.latencyMs).toEqual(expect.any(Number));
    expect(Date.parse(first.checkedAt)).not.toBeNaN();
    expect(tron('testnet')).toMatchObject({ required: true, reachable: false });
    expect(tron('testnet').endpoints[0]).toMatchObject({ endpoint: hostOf(dead), up: false, height: null });
    expect(tron('testnet').endpoints[0].error).toMatch(/ECONNREFUSED/);
    // Public defaults of other chains are reported, not required.
    const ethereum = res.body.data.chains.find((c: { chain: string }) => c.chain === 'ethereum');
    expect(ethereum).toMatchObject({ required: false, reachable: false });
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });

  it('answers 200 when only reachable chains are required, and 503 when a required chain is not served', async () => {
    const mainnetOnly = await gateway({ REQUIRED_CHAINS: 'tron:mainnet' });
    await mainnetOnly.ctx.nodeMonitor.probeAll();
    const ready = await mainnetOnly.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 200, ok: true, data: { ready: true } });

    const none = await gateway({ REQUIRED_CHAINS: 'none' });
    await none.ctx.nodeMonitor.probeAll();
    expect((await none.request('GET', '/readyz')).status).toBe(200);

    const all = await gateway({ REQUIRED_CHAINS: 'all' });
    await all.ctx.nodeMonitor.probeAll();
    const notReady = await all.request('GET', '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.errors).toContainEqual({ field: 'tron:testnet', message: 'no reachable node' });
    expect(notReady.body.errors).toContainEqual({ field: 'ethereum:mainnet', message: 'no reachable node' });
    expect(notReady.body.errors).not.toContainEqual(expect.objectContaining({ field: 'tron:mainnet' }));
  });

  it('lists each fee sponsor with whether it is served, never its key, without counting it toward readiness', async () => {
    const gw = await gateway({ REQUIRED_CHAINS: 'none' });
    expect((await gw.request('GET', '/readyz')).body.data.sponsors).toEqual([]);
    const operator = await gw.userToken('operator@example.com');
    const place = { userId: operator.userId, chain: 'tron', network: 'mainnet' as const };
    const tron = await gw.ctx.custody.create(place, 'a sponsor password');
    await gw.ctx.sponsorship.sponsors.set(
      { ...place, address: tron.address, budget: null, period: 'month' },
      tron.privateKey,
    );
    // Bitcoin pays its fees from the coins it moves: a sponsor set for it is kept but never used.
    const bitcoin = {
      ...place,
      chain: 'bitcoin',
      address: 'bc1qsponsor',
      budget: 5n,
      period: 'day' as const,
    };
    await gw.ctx.sponsorship.sponsors.set(bitcoin, tron.privateKey);
    const res = await gw.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.data.sponsors).toEqual([
      { chain: 'bitcoin', network: 'mainnet', address: 'bc1qsponsor', served: false },
      { chain: 'tron', network: 'mainnet', address: tron.address, served: true },
    ]);
    expect(res.text).not.toContain(tron.privateKey);
  });
});

describe('node metrics and warnings', () => {
  it('serves per-endpoint gauges and counts failed probes and calls', async () => {
    const gw = await gateway();
    await gw.ctx.nodeMonitor.probeAll();
    // A failed node call through the API: the dead testnet endpoint is tried on every retry.
    const { token } = await gw.userToken();
    const failed = await gw.request('GET', '/api/v2/tron/blocks/number', {
      token,
      headers: { 'x-network': 'testnet' },
    });
    expect(failed.status).toBe(503);
    const server = await startMetricsServer(gw.ctx.metrics, '127.0.0.1', 0);
    try {
      const text = await (await fetch(server.url)).text();
      const series = (name: string, endpoint: string, network: string, extra = '') =>
        new RegExp(
          `^${name}\\{chain="tron",network="${network}",endpoint="${endpoint}"${extra}\\} (\\d+(\\.\\d+)?)$`,
          'm',
        ).exec(text)?.[1];
      expect(series('switchyard_node_up', hostOf(ahead.url), 'mainnet')).toBe('1');
      expect(series('switchyard_node_up', hostOf(dead), 'testnet')).toBe('0');
      expect(
        Number(series('switchyard_node_head_height', hostOf(ahead.url), 'mainnet')),
      ).toBeGreaterThanOrEqual(5);
      expect(series('switchyard_node_probe_latency_seconds', hostOf(ahead.url), 'mainnet')).toBeDefined();
      expect(series('switchyard_node_errors_total', hostOf(dead), 'testnet', ',source="probe"')).toBe('1');
      expect(
        Number(series('switchyard_node_errors_total', hostOf(dead), 'testnet', ',source="call"')),
      ).toBeGreaterThan(0);
      expect(series('switchyard_node_errors_total', hostOf(ahead.url), 'mainnet', ',source="probe"')).toBe(
        '0',
      );
    } finally {
      await server.close();
    }
  });

  it('warns once when a node goes down, not once per failed probe or call', async () => {
    const gw = await gateway({ NODE_PROBE_INTERVAL_SECONDS: '1', REQUIRED_CHAINS: 'none' });
    gw.ctx.nodeMonitor.start();
    const { token } = await gw.userToken();
    for (let i = 0; i < 3; i++) {
      const res = await gw.request('GET', '/api/v2/tron/blocks/number', {
        token,
        headers: { 'x-network': 'testnet' },
      });
      expect(res.status).toBe(503);
    }
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const warnings = gw.logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['level'] === 40 && line['network'] === 'testnet' && line['chain'] === 'tron');
    expect(warnings.map((line) => line['msg']).sort()).toEqual(['node call failed', 'node endpoint down']);
    expect(warnings.find((line) => line['msg'] === 'node endpoint down')).toMatchObject({
      endpoint: hostOf(dead),
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
