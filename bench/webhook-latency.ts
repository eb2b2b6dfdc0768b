import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair } from '@solana/web3.js';
import { utils } from 'tronweb';
import { getAddress } from 'viem';
import { startEvmDevnet } from '../devnets/evm/index.ts';
import { MAINNET_GENESIS_HASH, startSolanaDevnet } from '../devnets/solana/index.ts';
import { startTronDevnet } from '../devnets/tron/index.ts';
import type { ChainName } from '../src/chains/types.ts';
import { type RoleOptions, startBackgroundRoles } from '../src/roles.ts';
import { startGateway } from '../test/helpers/gateway.ts';
import { type Benchmark, type Measurement, percentile } from './types.ts';

const TRANSFERS = 40;

/** One chain's devnet as the measurement drives it. */
export interface LatencySubject {
  chain: ChainName;
  /** The gateway's settings that point at the devnet. */
  env: Record<string, string>;
  recipient(): string;
  /**
   * Makes a block holding a transfer to `to`, or sends one for the devnet's next block; resolves to its
   * txid and the moment the clock starts (the block is made, or for Solana confirmed, right after it), or
   * null when that moment is known only once the block is made (`blockMadeAt`).
   */
  transfer(to: string, i: number): Promise<{ txid: string; startedAt: number | null }>;
  /** When the block holding `txid` was made, on the `performance.now()` clock. */
  blockMadeAt?(txid: string): Promise<number>;
  /** How long the watcher runs on the subscription before the first transfer (default 1.5 s). */
  settleMs?: number;
  close(): Promise<void>;
}

/**
 * From a block being produced to the first delivery attempt reaching the receiver, with the gateway's
 * default polls (watchers 500 ms, deliverer 250 ms) and whatever wakes them sooner; against the same
 * receiver's plain POST round trip.
 */
export async function measure(
  subject: LatencySubject,
  roleOptions: RoleOptions = {},
  transfers = TRANSFERS,
): Promise<{ latencies: number[]; postRoundTrip: number[] }> {
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
  const gw = await startGateway({
    env: { ...subject.env, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'error' },
  });
  const roles = startBackgroundRoles(gw.ctx, roleOptions);
  try {
    const { token } = await gw.userToken('bench@example.com', 'enterprise');
    const to = subject.recipient();
    await gw.request('POST', `/api/v2/${subject.chain}/webhooks`, { token, json: { url, to } });
    await new Promise((r) => setTimeout(r, subject.settleMs ?? 1_500));
    const latencies: number[] = [];
    const postRoundTrip: number[] = [];
    for (let i = 0; i < transfers; i++) {
      const started = performance.now();
      await fetch(url, { method: 'POST', body: '{}' });
      postRoundTrip.push(performance.now() - started);
      const { txid, startedAt } = await subject.transfer(to, i);
      while (!arrivals.has(txid)) await new Promise((r) => setTimeout(r, 5));
      const madeAt = startedAt ?? (await subject.blockMadeAt!(txid));
      latencies.push(arrivals.get(txid)! - madeAt);
    }
    return { latencies, postRoundTrip };
  } finally {
    await roles.stop();
    await gw.close();
    await subject.close();
    receiver.close();
  }
}

/** Ethereum on anvil, a block per transaction, announced by `newHeads` on the node's WebSocket. */
async function anvilSubject(): Promise<LatencySubject> {
  const devnet = await startEvmDevnet({ chain: 'ethereum' });
  return {
    chain: 'ethereum',
    env: { ETHEREUM_MAINNET_URLS: devnet.url, ETHEREUM_MAINNET_WS_URL: devnet.wsUrl },
    recipient: () => getAddress(`0x${randomBytes(20).toString('hex')}`),
    async transfer(to, i) {
      const startedAt = performance.now();
      const txid = await devnet.faucetNative(to, 10n ** 15n + BigInt(i));
      return { txid, startedAt };
    },
    close: () => devnet.close(),
  };
}

/**
 * The Solana devnet with slots on demand, announced by `slotSubscribe`. The watcher follows confirmed
 * blocks, and a block is confirmed when the next one comes: the clock starts as that one is made.
 */
async function solanaSubject(): Promise<LatencySubject> {
  const devnet = await startSolanaDevnet({ slotIntervalMs: null, genesisHash: MAINNET_GENESIS_HASH });
  return {
    chain: 'solana',
    env: { SOLANA_MAINNET_URLS: devnet.url, SOLANA_MAINNET_WS_URL: devnet.wsUrl },
    recipient: () => Keypair.generate().publicKey.toBase58(),
    async transfer(to, i) {
      const txid = await devnet.airdrop(to, 1_000_000n + BigInt(i));
      const startedAt = performance.now();
      await devnet.advance(1);
      return { txid, startedAt };
    },
    close: () => devnet.close(),
  };
}

/**
 * The Tron devnet, blocks on demand: no subscription exists, and a block comes long before the 3 s block
 * time says it is due, so this is the watcher's brisk path for such chains (tron-pacing.ts measures the
 * pace on blocks every 3 s).
 */
async function tronSubject(): Promise<LatencySubject> {
  const devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
  return {
    chain: 'tron',
    env: { TRON_MAINNET_URLS: devnet.url, TRON_TESTNET_URLS: devnet.url },
    recipient: () => utils.accounts.generateAccount().address.base58 as string,
    async transfer(to, i) {
      const startedAt = performance.now();
      const txid = await devnet.faucetTrx(to, 1_000_000n + BigInt(i));
      return { txid, startedAt };
    },
    close: () => devnet.close(),
  };
}

async function latencyLine(
  what: string,
  subject: Promise<LatencySubject>,
  goal: Measurement['goal'],
): Promise<Measurement> {
  const { latencies, postRoundTrip } = await measure(await subject);
  return {
    what,
    unit: 'ms',
    measured: percentile(latencies, 99),
    baseline: {
      what: 'plain POST round trip p50 to the same receiver',
      value: percentile(postRoundTrip, 50),
    },
    ...(goal === undefined ? {} : { goal }),
    note: `p50 ${percentile(latencies, 50).toFixed(0)} ms`,
  };
}

export const webhookLatency: Benchmark = {
  name: `webhooks: block-to-first-attempt latency over ${TRANSFERS} devnet blocks per chain (woken, and Tron on demand)`,
  async run() {
    const goal = { on: 'value', op: '<=', value: 100 } as const;
    // One at a time: the figures are each chain's alone.
    return [
      await latencyLine(
        'block to first delivery attempt, p99 (EVM on anvil, newHeads)',
        anvilSubject(),
        goal,
      ),
      await latencyLine(
        'confirmed block to first delivery attempt, p99 (Solana devnet, slotSubscribe)',
        solanaSubject(),
        goal,
      ),
      await latencyLine(
        'block to first delivery attempt, p99 (Tron devnet, blocks on demand: polling sooner than due)',
        tronSubject(),
        undefined,
      ),
    ];
  },
};
