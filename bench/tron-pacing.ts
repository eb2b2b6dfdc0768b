import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronWeb, utils } from 'tronweb';
import { startTronDevnet, type TronDevnet } from '../devnets/tron/index.ts';
import type { RoleOptions } from '../src/roles.ts';
import { type Benchmark, type Measurement, percentile } from './types.ts';
import { type LatencySubject, measure } from './webhook-latency.ts';

const TRANSFERS = 40;
/** The watchers' pace before block times paced them, run as a setting for the baseline. */
const FIXED_POLL: RoleOptions = { pollMs: 500 };
/** What the watcher asks a Tron node: the head, then each block and its transactions' results. */
const WATCHER_PATHS = ['/wallet/getblock', '/wallet/getblockbynum', '/wallet/gettransactioninfobyblocknum'];
// (The node monitor reads the head too, at its own pace: both runs count it alike.)

/** Forwards every request to `target` and counts them by path. */
async function countingProxy(target: string) {
  const counts = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const forwarded = http.request(
      `${target}${request.url ?? ''}`,
      { method: request.method, headers: request.headers, agent },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/**
 * The Tron devnet making a block at the start of every 3 s slot, as the chain does, reached as mainnet
 * through a counting proxy. Each transfer is broadcast for the next block; the clock starts at that block's
 * timestamp (when the devnet made it).
 */
async function timedTronSubject(devnet: TronDevnet, nodeUrl: string): Promise<LatencySubject> {
  const tronWeb = new TronWeb({ fullHost: devnet.url, privateKey: devnet.faucet.privateKey });
  // When each block was made (its timestamp is its slot; a busy machine makes it later).
  const madeAt = new Map<number, number>();
  const mine = devnet.chain.mine.bind(devnet.chain);
  devnet.chain.mine = async (count) => {
    const blocks = await mine(count);
    for (const block of blocks) madeAt.set(Number(block.header.number), performance.now());
    return blocks;
  };
  return {
    chain: 'tron',
    // Only mainnet is counted: the testnet watcher, idle, reads its head at another pace under a fixed poll.
    env: { TRON_MAINNET_URLS: nodeUrl, TRON_TESTNET_URLS: devnet.url },
    recipient: () => utils.accounts.generateAccount().address.base58 as string,
    async transfer(to, i) {
      const tx = await tronWeb.transactionBuilder.sendTrx(to, 1_000_000 + i, devnet.faucet.address);
      const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(tx));
      if (!sent.result) throw new Error(`the devnet refused a transfer: ${JSON.stringify(sent)}`);
      return { txid: tx.txID, startedAt: null };
    },
    async blockMadeAt(txid) {
      const { blockNumber } = await tronWeb.trx.getTransactionInfo(txid);
      const at = madeAt.get(blockNumber);
      if (at === undefined) throw new Error(`block ${blockNumber} was not made by the devnet's timer`);
      return at;
    },
    // The watcher has seen two blocks on time: the figures are its steady pace, not its start.
    settleMs: 7_000,
    close: async () => {},
  };
}

/** Latencies and the node requests per minute the gateway sent meanwhile, at one pace. */
async function run(roleOptions: RoleOptions) {
  const devnet = await startTronDevnet({ blockIntervalMs: 3_000, solidifyLag: 0 });
  const proxy = await countingProxy(devnet.url);
  try {
    const started = performance.now();
    const { latencies } = await measure(await timedTronSubject(devnet, proxy.url), roleOptions, TRANSFERS);
    const minutes = (performance.now() - started) / 60_000;
    const all = [...proxy.counts.values()].reduce((a, b) => a + b, 0);
    const watcher = WATCHER_PATHS.reduce((sum, path) => sum + (proxy.counts.get(path) ?? 0), 0);
    const head = proxy.counts.get('/wallet/getblock') ?? 0;
    return {
      latencies,
      watcherPerMinute: watcher / minutes,
      headPerMinute: head / minutes,
      allPerMinute: all / minutes,
    };
  } finally {
    await proxy.close();
    await devnet.close();
  }
}

export const tronPacing: Benchmark = {
  name: `webhooks: Tron block-time pacing over ${TRANSFERS} blocks of a 3 s devnet, against the fixed 500 ms poll`,
  async run(): Promise<Measurement[]> {
    // One after the other, each on a devnet of its own: the figures are each pace's alone.
    const fixed = await run(FIXED_POLL);
    const paced = await run({});
    const perMinute = (r: typeof paced) =>
      `head ${r.headPerMinute.toFixed(0)}/min; all the gateway sent: ${r.allPerMinute.toFixed(0)}/min`;
    return [
      {
        what: 'block to first delivery attempt, p99 (Tron devnet, blocks every 3 s, paced by the block time)',
        unit: 'ms',
        measured: percentile(paced.latencies, 99),
        baseline: {
          what: `the fixed 500 ms poll, p99 (p50 ${percentile(fixed.latencies, 50).toFixed(0)} ms)`,
          value: percentile(fixed.latencies, 99),
        },
        goal: { on: 'value', op: '<=', value: 250 },
        note: `p50 ${percentile(paced.latencies, 50).toFixed(0)} ms`,
      },
      {
        what: 'watcher requests per minute to the Tron node (head, blocks, transaction results), paced',
        unit: 'req/min',
        measured: paced.watcherPerMinute,
        baseline: {
          what: `the fixed 500 ms poll; ${perMinute(fixed)}`,
          value: fixed.watcherPerMinute,
        },
        goal: { on: 'ratio', op: '<=', value: 1 },
        note: perMinute(paced),
      },
    ];
  },
};
