/**
 * The chain watcher behind a misbehaving node: "no block skipped, no false notification". anvil runs
 * behind the fault proxy; transfers go straight to anvil while the proxy cycles through every fault and
 * the gateway follows the chain through it; the node jumps to another fork on the way. Once the proxy is
 * healed and the watcher has caught up, what the subscribers were told, net, must be exactly the final
 * chain's watched transfers, and the watcher must have passed every height. `FAULT_FULL=1` runs more
 * transfers, longer phases and the cycle twice.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type Address, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { OFFLINE_NODES_ENV } from '../helpers/offline-nodes.ts';
import { waitFor } from '../helpers/processes.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { readCanonicalChain } from './canonical-chain.ts';
import { netNotifications, standing, transferKey, uniqueDeliveries } from './net-notifications.ts';
import { describeFault, type NodeFault, type NodeFaultKind } from './node-fault.ts';
import { type NodeFaultProxy, startNodeFaultProxy } from './node-fault-proxy.ts';

const FULL = process.env['FAULT_FULL'] === '1';
const SEED = Number(process.env['FAULT_SEED'] ?? 1124);
const PHASE_MS = FULL ? 5_000 : 1_200;
const TRANSFERS_PER_PHASE = FULL ? 8 : 3;
const CYCLES = FULL ? 2 : 1;
/** The deepest confirmations a subscription here asks for: the chain is mined past it at the end. */
const CONFIRMATIONS = 3;
/** An API read that takes longer than this hangs: the node client's retries end well before it. */
const API_HANG_MS = 20_000;

interface FaultShare {
  fault: NodeFault;
  /** Share of the requests that get the fault. */
  share: number;
}

/** A stretch of the run: the proxy misbehaves one way, or the node jumps to another fork (and then misbehaves). */
type Phase = ({ kind: 'fault' } & FaultShare) | { kind: 'fork-jump'; depth: number; afterwards: FaultShare };

const fault = (nodeFault: NodeFault, share: number): Phase => ({
  kind: 'fault',
  fault: nodeFault,
  share,
});

/**
 * One cycle through every fault. Garbled answers come first, so the watcher's first token decimals are
 * read through them. Half the requests lag after the fork jump (a load balancer over two nodes at
 * different heights), so the watcher meets the reorg, and unwinds it, through a lagging node.
 */
const CYCLE: Phase[] = [
  fault({ kind: 'wrong-shape' }, 0.5),
  fault({ kind: 'delay', minMs: 200, maxMs: 1500 }, 0.6),
  fault({ kind: 'drop' }, 0.4),
  fault({ kind: 'rate-limit', retryAfterSeconds: 1 }, 0.4),
  fault({ kind: 'server-error', status: 500 }, 0.4),
  fault({ kind: 'server-error', status: 502 }, 0.4),
  fault({ kind: 'server-error', status: 503 }, 0.4),
  fault({ kind: 'truncated-body' }, 0.4),
  fault({ kind: 'not-json' }, 0.4),
  fault({ kind: 'behind', blocks: 4 }, 1),
  { kind: 'fork-jump', depth: 3, afterwards: { fault: { kind: 'behind', blocks: 6 }, share: 0.5 } },
  fault({ kind: 'delay', minMs: 200, maxMs: 1500 }, 0.3),
];

interface SentTransfer {
  txid: string;
  to: Address;
  asset: 'ETH' | 'USDT';
  amountRaw: bigint;
}

interface Subscription {
  id: string;
  secret: string;
  address: Address;
}

/** API answers while the node misbehaves: a node failure is 502 or 503, never 500, never a hang. */
interface ApiRead {
  path: string;
  status: number | 'hang';
}

const random = seededRandom(SEED ^ 0x5eed);
const newAddress = () => getAddress(`0x${randomBytes(20).toString('hex')}`);
const WATCHED: Address[] = [newAddress(), newAddress(), newAddress(), newAddress()];

let origin: EvmDevnet;
/** The devnet the proxy forwards to: the origin, then each fork jumped to. */
let current: EvmDevnet;
const forks: EvmDevnet[] = [];
let proxy: NodeFaultProxy;
let receiver: WebhookReceiver;
let gw: TestGateway;
let roles: BackgroundRoles;
let token: string;
const subscriptions: Subscription[] = [];
const sent: SentTransfer[] = [];
const apiReads: ApiRead[] = [];
/** Every height the watcher has held as processed (chain_blocks), polled through the run. */
const processedHeights = new Set<number>();
let pollProgress: NodeJS.Timeout | undefined;

beforeAll(async () => {
  origin = await startEvmDevnet({ chain: 'ethereum' });
  current = origin;
  proxy = await startNodeFaultProxy({ upstream: origin.url, seed: SEED });
  receiver = await startWebhookReceiver();
  ({ gw, roles, token } = await startWatchingGateway({
    ...OFFLINE_NODES_ENV,
    ETHEREUM_MAINNET_URLS: proxy.url,
    NODE_RETRIES: '3',
    NODE_TIMEOUT_MS: '3000',
  }));
}, 120_000);

afterAll(async () => {
  clearInterval(pollProgress);
  await roles?.stop();
  await gw?.close();
  await proxy?.close();
  await Promise.all([...forks, origin].filter(Boolean).map((devnet) => devnet.close()));
  void receiver?.close();
});

const api = (method: string, path: string, json?: unknown) =>
  gw.request(method, `/api/v2/ethereum${path}`, { token, ...(json === undefined ? {} : { json }) });

async function subscribe(address: Address, confirmations: number): Promise<Subscription> {
  const res = await api('POST', '/webhooks', {
    url: `${receiver.url}/hook`,
    to: address,
    notify_reverted: true,
    confirmations,
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.webhook, secret: res.body.data.secret, address };
}

async function cursor(): Promise<{ number: bigint; hash: string } | undefined> {
  const row = await gw.ctx.store.db
    .selectFrom('chain_cursors')
    .select(['block_number', 'block_hash'])
    .where('chain', '=', 'ethereum')
    .where('network', '=', 'mainnet')
    .executeTakeFirst();
  return row && { number: BigInt(row.block_number), hash: row.block_hash };
}

async function head(devnet: EvmDevnet): Promise<bigint> {
  return BigInt(await devnet.rpc<Hex>('eth_blockNumber'));
}

/** Until the watcher has processed every block up to the devnet's head. */
async function caughtUp(devnet: EvmDevnet, timeoutMs: number): Promise<bigint> {
  const target = await head(devnet);
  await waitFor(async () => ((await cursor())?.number ?? -1n) >= target || undefined, timeoutMs);
  return target;
}

/** Until nothing waits in the outbox or for confirmations: every notification settled. */
async function outboxSettled(timeoutMs: number): Promise<void> {
  const ids = subscriptions.map((s) => s.id);
  await waitFor(async () => {
    const unsent = await gw.ctx.store.db
      .selectFrom('notifications')
      .select('id')
      .where('webhook_id', 'in', ids)
      .where('status', 'in', ['pending', 'delivering'])
      .limit(1)
      .execute();
    return unsent.length === 0 || undefined;
  }, timeoutMs);
}

/** A transfer straight to the devnet (not through the proxy): mostly to a watched address. */
async function sendTransfer(devnet: EvmDevnet): Promise<void> {
  const to = random() < 0.85 ? WATCHED[Math.floor(random() * WATCHED.length)]! : newAddress();
  const asset = random() < 0.5 ? 'ETH' : 'USDT';
  // Never twice the same: a fork's transfer must not share its hash with one of the chain it left.
  const amountRaw = BigInt(sent.length + 1) * 1_000_000n + BigInt(Math.floor(random() * 1_000_000));
  const txid =
    asset === 'ETH'
      ? await devnet.faucetNative(to, amountRaw * 10n ** 9n)
      : await devnet.faucetErc20(devnet.tokens.erc20.USDT, to, amountRaw);
  sent.push({
    txid: txid.toLowerCase(),
    to,
    asset,
    amountRaw: asset === 'ETH' ? amountRaw * 10n ** 9n : amountRaw,
  });
}

/** One API read, timed out as a hang when the gateway does not answer. */
async function readApi(path: string): Promise<void> {
  try {
    const response = await fetch(`${gw.baseUrl}/api/v2/ethereum${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(API_HANG_MS),
    });
    await response.text();
    apiReads.push({ path, status: response.status });
  } catch {
    apiReads.push({ path, status: 'hang' });
  }
}

/** The reads a client makes while the node misbehaves: head, native and token balances. */
function readApiWhile(done: () => boolean): Promise<void> {
  return (async () => {
    for (let round = 0; !done(); round++) {
      const address = WATCHED[round % WATCHED.length]!;
      await Promise.all([
        readApi('/blocks/number'),
        readApi(`/balances/${address}`),
        readApi(`/balances/${address}/erc20/${current.tokens.erc20.USDT}`),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  })();
}

/**
 * The node moves to another fork: a devnet forked from the current one `depth` blocks below its head,
 * which then gets transfers of its own. The watcher is let catch up first, so the transfers left behind
 * were notified and must be taken back.
 */
async function jumpToFork(depth: number): Promise<void> {
  proxy.heal();
  const top = await caughtUp(current, 30_000);
  await outboxSettled(30_000);
  const fork = await startEvmDevnet({
    chain: 'ethereum',
    fork: { devnet: current, blockNumber: top - BigInt(depth) },
  });
  forks.push(fork);
  current = fork;
  proxy.switchUpstream(fork.url);
}

/** Adds the heights the watcher holds as processed now (it keeps the last reorg depth of them). */
async function recordProcessedHeights(): Promise<void> {
  const rows = await gw.ctx.store.db
    .selectFrom('chain_blocks')
    .select('block_number')
    .where('chain', '=', 'ethereum')
    .where('network', '=', 'mainnet')
    .execute();
  for (const row of rows) processedHeights.add(Number(row.block_number));
}

function describePhase(phase: Phase): string {
  const share = (f: FaultShare) => `${describeFault(f.fault)} x${f.share}`;
  return phase.kind === 'fault' ? share(phase) : `fork-jump ${phase.depth} then ${share(phase.afterwards)}`;
}

async function runPhase(phase: Phase): Promise<void> {
  let transfers = TRANSFERS_PER_PHASE;
  if (phase.kind === 'fork-jump') {
    await jumpToFork(phase.depth);
    proxy.setFault(phase.afterwards.fault, { share: phase.afterwards.share });
    // The new fork must outgrow the chain it left for the node to prefer it.
    transfers = Math.max(transfers, phase.depth + 3);
  } else {
    proxy.setFault(phase.fault, { share: phase.share });
  }
  let over = false;
  const reads = readApiWhile(() => over);
  for (let i = 0; i < transfers; i++) {
    await sendTransfer(current);
    await new Promise((resolve) => setTimeout(resolve, PHASE_MS / transfers));
  }
  over = true;
  await reads;
}

describe('the chain watcher behind a misbehaving node', () => {
  it(
    'notifies every transfer of the final chain exactly once net, nothing else, and skips no block',
    async () => {
      const startHead = await head(origin);
      for (const address of WATCHED) subscriptions.push(await subscribe(address, 1));
      for (const address of WATCHED.slice(0, 2)) subscriptions.push(await subscribe(address, CONFIRMATIONS));
      pollProgress = setInterval(() => void recordProcessedHeights().catch(() => undefined), 100);

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        for (const phase of CYCLE) await runPhase(phase);
      }

      // Healed: the last blocks are mined past every confirmation asked for, and the watcher catches up.
      proxy.heal();
      await current.mine(CONFIRMATIONS + 1);
      const finalHead = await caughtUp(current, 60_000);
      await outboxSettled(30_000);
      clearInterval(pollProgress);
      await recordProcessedHeights();

      const truth = await readCanonicalChain(current.rpc, startHead + 1n, finalHead);
      const usdt = getAddress(origin.tokens.erc20.USDT);
      const included = sent.filter((transfer) => truth.blockOf.has(transfer.txid));
      const abandoned = sent.filter((transfer) => !truth.blockOf.has(transfer.txid));
      expect(abandoned.length, 'the fork jumps left transfers behind').toBeGreaterThan(0);

      // Every delivery is signed as Standard Webhooks says, with its subscription's secret.
      const secretOf = new Map(subscriptions.map((s) => [s.id, s.secret]));
      for (const delivery of receiver.received) {
        const { webhook_id: webhookId } = JSON.parse(delivery.body) as { webhook_id: string };
        expect(() =>
          new Webhook(secretOf.get(webhookId)!).verify(
            delivery.body,
            delivery.headers as Record<string, string>,
          ),
        ).not.toThrow();
      }

      const deliveries = uniqueDeliveries(receiver.received);
      const net = netNotifications(deliveries);
      for (const subscription of subscriptions) {
        const expected = Object.fromEntries(
          included
            .filter((transfer) => transfer.to === subscription.address)
            .map((transfer) => [
              transferKey({
                txid: transfer.txid,
                blocknumber: truth.blockOf.get(transfer.txid)!.toString(),
                type: transfer.asset === 'ETH' ? 'ETH' : 'ERC20',
                contractaddress: transfer.asset === 'ETH' ? null : usdt,
                to: transfer.to,
                amount_raw: transfer.amountRaw.toString(),
                decimals: transfer.asset === 'ETH' ? 18 : 6,
              }),
              1,
            ]),
        );
        expect(standing(net.get(subscription.id)), `webhook ${subscription.id}`).toEqual(expected);
      }
      // A `reverted` is only ever for a transfer that left the chain: no transfer of the final chain was
      // ever in a block that left it (each fork gets transactions of its own).
      const reverted = deliveries.filter((payload) => payload.event === 'reverted');
      expect(reverted.length, 'transfers of the abandoned fork were taken back').toBeGreaterThan(0);
      expect(reverted.filter((payload) => truth.blockOf.has(payload.txid.toLowerCase()))).toEqual([]);

      // No block skipped: every height was processed, and the blocks kept are the final chain's.
      const missing = [];
      for (let height = startHead + 1n; height <= finalHead; height++) {
        if (!processedHeights.has(Number(height))) missing.push(height);
      }
      expect(missing).toEqual([]);
      expect(await cursor()).toEqual({ number: finalHead, hash: truth.hashes.get(finalHead) });
      const kept = await gw.ctx.store.db
        .selectFrom('chain_blocks')
        .select(['block_number', 'block_hash'])
        .where('chain', '=', 'ethereum')
        .where('network', '=', 'mainnet')
        .where('block_number', '>', Number(startHead))
        .execute();
      for (const block of kept) {
        expect(block.block_hash, `block ${block.block_number}`).toBe(
          truth.hashes.get(BigInt(block.block_number)),
        );
      }
      const parked = await gw.ctx.store.db.selectFrom('pending_events').select('id').execute();
      expect(parked).toEqual([]);

      // The API answered every read while the node misbehaved: 200, or a node failure as 502/503.
      const unexpected = apiReads.filter(
        (read) => read.status !== 200 && read.status !== 502 && read.status !== 503,
      );
      expect(unexpected).toEqual([]);
      expect(apiReads.filter((read) => read.status === 200).length).toBeGreaterThan(0);

      // Every fault was served, not only configured.
      const faulted = proxy.faulted();
      const kinds: NodeFaultKind[] = [
        'delay',
        'drop',
        'rate-limit',
        'server-error',
        'truncated-body',
        'not-json',
        'wrong-shape',
        'behind',
      ];
      for (const kind of kinds) expect(faulted[kind] ?? 0, kind).toBeGreaterThan(0);
      const byStatus: Record<string, number> = {};
      for (const read of apiReads) byStatus[read.status] = (byStatus[read.status] ?? 0) + 1;
      const unwindsWaited = gw.logLines.filter((line) => line.includes('reorg unwinding waits')).length;
      console.info(
        `node faults (seed ${SEED}${FULL ? ', full' : ''}): ${sent.length} transfers, ${abandoned.length} abandoned, ` +
          `${reverted.length} reverted, blocks ${startHead + 1n}..${finalHead}, API reads by status ${JSON.stringify(byStatus)}, ` +
          `${unwindsWaited} unwinds waited for a lagging node; ` +
          `faulted ${JSON.stringify(faulted)}; phases ${CYCLE.map(describePhase).join(', ')}`,
      );
    },
    FULL ? 900_000 : 180_000,
  );
});
