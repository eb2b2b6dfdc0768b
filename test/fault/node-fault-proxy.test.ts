/** The fault proxy does what each fault says, in front of a real anvil: the suite's faults are real ones. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { type NodeFaultProxy, startNodeFaultProxy } from './node-fault-proxy.ts';

let devnet: EvmDevnet;
let proxy: NodeFaultProxy;

beforeAll(async () => {
  devnet = await startEvmDevnet({ chain: 'ethereum' });
  proxy = await startNodeFaultProxy({ upstream: devnet.url, seed: 7 });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await devnet?.close();
});

/** One JSON-RPC call through the proxy, as raw as the gateway's client sees it. */
async function call(method: string, params: unknown[] = []) {
  const response = await fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const result = async (method: string, params: unknown[] = []) =>
  (JSON.parse((await call(method, params)).text) as { result: unknown }).result;

describe('node fault proxy', () => {
  it('forwards untouched when healed', async () => {
    proxy.heal();
    expect(BigInt((await result('eth_blockNumber')) as string)).toBe(
      BigInt(await devnet.rpc<string>('eth_blockNumber')),
    );
  });

  it('answers 429 with Retry-After, and the server errors asked for', async () => {
    proxy.setFault({ kind: 'rate-limit', retryAfterSeconds: 2 });
    const limited = await call('eth_blockNumber');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    for (const status of [500, 502, 503] as const) {
      proxy.setFault({ kind: 'server-error', status });
      expect((await call('eth_blockNumber')).status).toBe(status);
    }
  });

  it('drops the connection, cuts a body short, sends HTML or a result of the wrong type', async () => {
    proxy.setFault({ kind: 'drop' });
    await expect(call('eth_blockNumber')).rejects.toThrow();
    proxy.setFault({ kind: 'truncated-body' });
    await expect(call('eth_getBlockByNumber', ['0x1', true])).rejects.toThrow();
    proxy.setFault({ kind: 'not-json' });
    const page = await call('eth_blockNumber');
    expect(page.status).toBe(200);
    expect(() => JSON.parse(page.text)).toThrow();
    proxy.setFault({ kind: 'wrong-shape' });
    expect(typeof (await result('eth_blockNumber'))).toBe('number');
    proxy.setFault({ kind: 'wrong-shape' }, { methods: ['eth_getBlockByNumber'] });
    expect(typeof (await result('eth_blockNumber'))).toBe('string');
    expect(typeof (await result('eth_getBlockByNumber', ['0x1', false]))).toBe('string');
  });

  it('delays answers by the time asked for', async () => {
    proxy.setFault({ kind: 'delay', minMs: 300, maxMs: 400 });
    const started = performance.now();
    await call('eth_blockNumber');
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('lags behind: a lower head, and nothing known above it', async () => {
    proxy.heal();
    await devnet.mine(5);
    const top = BigInt(await devnet.rpc<string>('eth_blockNumber'));
    proxy.setFault({ kind: 'behind', blocks: 3 });
    expect(BigInt((await result('eth_blockNumber')) as string)).toBe(top - 3n);
    expect(await result('eth_getBlockByNumber', [`0x${top.toString(16)}`, false])).toBeNull();
    const latest = (await result('eth_getBlockByNumber', ['latest', false])) as { number: string };
    expect(BigInt(latest.number)).toBe(top - 3n);
    const { hash } = await devnet.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false]);
    expect(await result('eth_getBlockByHash', [hash, false])).toBeNull();
  });

  it('faults only the share of requests asked for', async () => {
    proxy.setFault({ kind: 'server-error', status: 503 }, { share: 0.5 });
    const before = proxy.faulted()['server-error'] ?? 0;
    const statuses = await Promise.all(Array.from({ length: 40 }, () => call('eth_chainId')));
    const failed = statuses.filter((answer) => answer.status === 503).length;
    expect(failed).toBeGreaterThan(5);
    expect(failed).toBeLessThan(35);
    expect((proxy.faulted()['server-error'] ?? 0) - before).toBe(failed);
    proxy.heal();
  });

  it('switches to another upstream: a fork with other blocks above its fork point', async () => {
    proxy.heal();
    const top = BigInt(await devnet.rpc<string>('eth_blockNumber'));
    const fork = await startEvmDevnet({ chain: 'ethereum', fork: { devnet, blockNumber: top - 1n } });
    try {
      await fork.mine(3);
      proxy.switchUpstream(fork.url);
      const at = async (height: bigint) =>
        (await result('eth_getBlockByNumber', [`0x${height.toString(16)}`, false])) as {
          hash: string;
          parentHash: string;
        };
      const original = await devnet.rpc<{ hash: string }>('eth_getBlockByNumber', [
        `0x${top.toString(16)}`,
        false,
      ]);
      const below = await devnet.rpc<{ hash: string }>('eth_getBlockByNumber', [
        `0x${(top - 1n).toString(16)}`,
        false,
      ]);
      expect((await at(top - 1n)).hash).toBe(below.hash);
      expect((await at(top)).hash).not.toBe(original.hash);
      expect((await at(top)).parentHash).toBe(below.hash);
      expect(BigInt((await result('eth_blockNumber')) as string)).toBe(top + 2n);
    } finally {
      proxy.switchUpstream(devnet.url);
      await fork.close();
    }
  });
});
