import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { utils } from 'tronweb';
import { startTronDevnet } from '../devnets/tron/index.ts';
import { startBackgroundRoles } from '../src/roles.ts';
import { startGateway } from '../test/helpers/gateway.ts';
import { type Benchmark, percentile } from './types.ts';

const TRANSFERS = 40;

/**
 * From a block being produced to the first delivery attempt reaching the receiver, with the default
 * watcher and deliverer polling, on the Tron devnet; against the same receiver's plain POST round trip.
 */
async function measure(): Promise<{ latencies: number[]; postRoundTrip: number[] }> {
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const txid = (JSON.parse(body || '{}') as { txid?: string }).txid;
      if (txid && !arrivals.has(txid)) arrivals.set(txid, performance.now());
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
  const gw = await startGateway({
    env: {
      TRON_MAINNET_URLS: devnet.url,
      TRON_TESTNET_URLS: devnet.url,
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      LOG_LEVEL: 'error',
    },
  });
  const roles = startBackgroundRoles(gw.ctx);
  try {
    const { token } = await gw.userToken('bench@example.com', 'enterprise');
    const to = utils.accounts.generateAccount().address.base58 as string;
    await gw.request('POST', '/api/v2/tron/webhooks', { token, json: { url, to } });
    await new Promise((r) => setTimeout(r, 1_500));
    const latencies: number[] = [];
    const postRoundTrip: number[] = [];
    for (let i = 0; i < TRANSFERS; i++) {
      const started = performance.now();
      await fetch(url, { method: 'POST', body: '{}' });
      postRoundTrip.push(performance.now() - started);
      const mined = performance.now();
      const txid = await devnet.faucetTrx(to, 1_000_000n + BigInt(i));
      while (!arrivals.has(txid)) await new Promise((r) => setTimeout(r, 5));
      latencies.push(arrivals.get(txid)! - mined);
    }
    return { latencies, postRoundTrip };
  } finally {
    await roles.stop();
    await gw.close();
    await devnet.close();
    receiver.close();
  }
}

export const webhookLatency: Benchmark = {
  name: `webhooks: block-to-first-attempt latency over ${TRANSFERS} Tron devnet blocks (default polling)`,
  async run() {
    const { latencies, postRoundTrip } = await measure();
    return [
      {
        what: 'block to first delivery attempt, p99 (Tron devnet)',
        unit: 'ms',
        measured: percentile(latencies, 99),
        baseline: {
          what: 'plain POST round trip p50 to the same receiver',
          value: percentile(postRoundTrip, 50),
        },
        goal: { on: 'value', op: '<=', value: 100 },
        note: `p50 ${percentile(latencies, 50).toFixed(0)} ms`,
      },
    ];
  },
};
