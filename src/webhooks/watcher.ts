import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import type { BlockFollower, BlockParent, FollowedBlock, HeadListening } from '../chains/follower.ts';
import { NodeError } from '../chains/node-client.ts';
import type { ChainName, Network, TransferEvent } from '../chains/types.ts';
import { nodeCallsKey, TroubleLog } from '../health/trouble-log.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../store/schema.ts';
import { DatabaseLease } from './leases.ts';
import {
  deserializeTransfer,
  enqueueNotification,
  enqueueReverted,
  type StoredPayload,
  serializeTransfer,
} from './outbox.ts';
import type { OutboxSignal } from './outbox-signal.ts';
import { FIXED_POLL_MS, PollPace } from './poll-pace.ts';
import { sharedMetric } from './shared-metric.ts';
import { SubscriptionSync } from './subscription-sync.ts';

export interface WatcherOptions {
  chain: ChainName;
  network: Network;
  /** The family's reader of this chain and network: heights, blocks and how deep reorgs reach. */
  follower: BlockFollower;
  db: Kysely<Database>;
  logger: Logger;
  /** Where step failures are told: one warning when they start, not one per retry. */
  troubleLog?: TroubleLog;
  metrics: Registry;
  instanceId: string;
  /** False while the chain is disabled (its node proved to be another chain). */
  enabled?: () => boolean;
  /** Told of every commit that wrote notifications, so deliverers claim them at once. */
  outbox?: OutboxSignal;
  /**
   * A fixed pause between polls when caught up (the follower's `heads`, when it has them, wake it
   * sooner). Unset, a follower without `heads` that knows its chain's block time is read when the next
   * block is due (poll-pace.ts), and any other every 500 ms.
   */
  pollMs?: number;
  /** How often the node's head is read while no subscription exists (keeps the cursor fresh, spares the node). */
  idlePollMs?: number;
  leaseMs?: number;
  /** Blocks handled per step before yielding. */
  batch?: number;
  now?: () => Date;
}

class LeaseLost extends Error {}

/** How soon the head is read again while the node's HTTP side lags a block its WebSocket announced. */
const ANNOUNCED_RETRY_MS = 100;
/** How long after an announcement that lag is waited out that way; then the poll takes over. */
const ANNOUNCED_PATIENCE_MS = 2_000;

/** A `transfer` notification whose block a reorg removed, with what its `reverted` twin needs. */
interface OrphanedNotification {
  id: string;
  webhook_id: string;
  txid: string;
  payload: string;
  block_hash: string;
  log_index: number;
  user_id: string;
  notify_reverted: number;
}

/** Watcher lag per chain and network, on the registry every watcher of a process shares. */
function lagGauge(registry: Registry): Gauge<'chain' | 'network'> {
  return sharedMetric(
    registry,
    'switchyard_watcher_lag_blocks',
    (place) =>
      new Gauge({
        ...place,
        help: 'Head block minus the last block the webhook watcher processed',
        labelNames: ['chain', 'network'] as const,
      }),
  );
}

/**
 * Follows one chain on one network for the webhooks: reads each block after the cursor, matches its
 * transfers, and in ONE database transaction writes the notifications (the outbox), parks events waiting
 * for confirmations, releases those now deep enough, records the block hash and moves the cursor. A crash
 * at any point replays from the last committed block; the outbox's unique index makes the replay add
 * nothing. It follows the canonical chain by each block's parent reference and unwinds reorgs as deep as
 * the family says they reach. A height the family calls skipped is passed; node trouble only delays it: a
 * block that cannot be read is retried, never skipped.
 */
export class ChainWatcher {
  private readonly sync: SubscriptionSync;
  private readonly lease: DatabaseLease;
  private readonly lag: Gauge<'chain' | 'network'>;
  private readonly now: () => Date;
  /** Set by stop(): ends the loop and any step under way. A watcher never started can be stepped by hand. */
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Set by wakeUp(): a block came during a step, so the next one runs at once. */
  private woken = false;
  private heads: HeadListening | null = null;
  /** The highest height the node announced, and when. */
  private announced: { height: bigint; at: number } | null = null;
  /** The head the last step read. */
  private lastHead: bigint | null = null;
  private lastIdleHeadCheck = 0;
  /** Set where the chain's block time paces the polls (no announcements, no fixed pollMs). */
  private readonly pace: PollPace | null;
  /** The step read every block up to the head it saw. */
  private caughtUp = false;
  /** The timestamp of the newest block the last step committed, if it committed any. */
  private newestBlockTime: number | null = null;

  constructor(private readonly options: WatcherOptions) {
    this.sync = new SubscriptionSync(options.db, options.chain, options.network);
    this.lease = new DatabaseLease(
      `watch:${options.chain}:${options.network}`,
      options.instanceId,
      options.leaseMs ?? 15_000,
    );
    this.lag = lagGauge(options.metrics);
    this.now = options.now ?? (() => new Date());
    const { blockTimeMs, heads } = options.follower;
    this.pace =
      options.pollMs === undefined && heads === undefined && blockTimeMs !== undefined
        ? new PollPace(blockTimeMs)
        : null;
  }

  start(): void {
    if (this.loop !== null) return;
    this.stopped = false;
    const { heads } = this.options.follower;
    this.heads = heads?.listen((height) => this.headAnnounced(height), this.options.logger) ?? null;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.heads?.stop();
    this.heads = null;
    await this.loop;
    this.loop = null;
    await this.lease.release(this.options.db).catch(() => {});
  }

  /** Reads the chain now rather than at the next poll (a block was announced). */
  wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  private headAnnounced(height: bigint | null): void {
    if (height !== null && (this.announced === null || height > this.announced.height)) {
      this.announced = { height, at: Date.now() };
    }
    this.wakeUp();
  }

  /**
   * The pause after a step on a chain paced by its block time: none while blocks are left to read, else
   * until the next block is due or the next step of the wait for it (at most the fixed pace while a
   * subscription waits for `pending` transfers).
   */
  private pacedPause(pace: PollPace, progressed: boolean): number {
    const now = Date.now();
    if (this.newestBlockTime !== null) pace.blockSeen(this.newestBlockTime, now);
    else if (!progressed) pace.nothingNew(now);
    if (progressed && !this.caughtUp) return 0;
    // Transactions reach the mempool at no block time: read for `pending` subscriptions at the fixed pace.
    const readsMempool = this.options.follower.unconfirmed !== undefined && this.sync.matcher.watchesPending;
    return readsMempool ? Math.min(pace.delay(now), FIXED_POLL_MS) : pace.delay(now);
  }

  /** The node's HTTP side has not reached the block its WebSocket announced a moment ago. */
  private lagsAnnouncement(): boolean {
    const { announced, lastHead } = this;
    return (
      announced !== null &&
      lastHead !== null &&
      lastHead < announced.height &&
      Date.now() - announced.at < ANNOUNCED_PATIENCE_MS
    );
  }

  private async run(): Promise<void> {
    const { chain, network, logger } = this.options;
    const trouble = this.options.troubleLog ?? new TroubleLog();
    const fields = { chain, network };
    // A node that is down is the same trouble for every caller of it; anything else is this watcher's own.
    const ownKey = `watcher ${chain} ${network}`;
    let failures = 0;
    while (!this.stopped) {
      let pause: number;
      this.woken = false;
      try {
        const { progressed, idle } = await this.step();
        if (failures > 0) {
          trouble.recovered(ownKey, logger, fields, 'watcher steps succeed again');
          trouble.recovered(nodeCallsKey(chain, network), logger, fields, 'node calls answer again');
        }
        failures = 0;
        // Idle rounds are cheap (one version read; the node is asked for its head every idlePollMs only).
        pause = progressed ? 0 : (this.options.pollMs ?? FIXED_POLL_MS);
        if (this.pace !== null && !idle) pause = this.pacedPause(this.pace, progressed);
        if (idle) pause = Math.max(pause, 250);
        else if (!progressed && this.lagsAnnouncement()) pause = Math.min(pause, ANNOUNCED_RETRY_MS);
      } catch (error) {
        failures++;
        const key = error instanceof NodeError ? nodeCallsKey(chain, network) : ownKey;
        trouble.failed(key, logger, fields, error, 'watcher step failed');
        pause = Math.min(10_000, 500 * 2 ** Math.min(failures, 5)) * (0.5 + Math.random() / 2);
      }
      // A block announced during the step is read at once.
      if (this.woken) pause = 0;
      if (pause > 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pause);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /**
   * One round: take or keep the lease, refresh the subscriptions, handle up to `batch` new blocks.
   * Exposed for tests, which drive the watcher block by block.
   */
  async step(): Promise<{ progressed: boolean; idle: boolean }> {
    const { db, follower } = this.options;
    this.caughtUp = false;
    this.newestBlockTime = null;
    if (this.options.enabled?.() === false) return { progressed: false, idle: true };
    if (!(await this.lease.acquire(db, this.now()))) {
      // A standby: the head it read as holder says nothing now.
      this.lastHead = null;
      return { progressed: false, idle: false };
    }
    // While idle, only look for a first subscription; the node is asked for its head now and then.
    if (
      this.sync.matcher.size === 0 &&
      Date.now() - this.lastIdleHeadCheck < (this.options.idlePollMs ?? 10_000)
    ) {
      await this.sync.refresh();
      if (this.sync.matcher.size === 0) return { progressed: false, idle: true };
    }
    // Head first: every block up to it was mined before the subscriptions are read, so none is skipped for
    // a subscription made meanwhile.
    const head = await follower.head();
    this.lastHead = head;
    await this.sync.refresh();
    const cursor = await this.cursor();
    const idle = this.sync.matcher.size === 0 && !(await this.hasPendingEvents());
    if (cursor === null || idle) {
      // Nothing to match: keep the cursor at the head so a first subscription starts from now.
      if (cursor === null || cursor.number < head)
        await this.moveCursorIdle(cursor === null ? head - 1n : head);
      this.lag.set({ chain: this.options.chain, network: this.options.network }, 0);
      this.lastIdleHeadCheck = Date.now();
      return { progressed: false, idle: true };
    }
    this.lag.set({ chain: this.options.chain, network: this.options.network }, Number(head - cursor.number));
    let next = cursor.number + 1n;
    const last = cursor.number + BigInt(this.options.batch ?? 20);
    let progressed = false;
    // The last height read as skipped since the last commit: the cursor moves past it at the end.
    let skippedTo: bigint | null = null;
    while (next <= head && next <= last && !this.stopped) {
      const reading = await follower.read(next);
      if (reading.kind === 'not-yet') break;
      if (reading.kind === 'skipped') {
        skippedTo = next++;
        continue;
      }
      const { block } = reading;
      if (!(await this.buildsOnKnownChain(block))) {
        await this.unwind(block.number - 1n);
        return { progressed: true, idle: false };
      }
      await this.commit(block);
      this.newestBlockTime = block.time.getTime();
      skippedTo = null;
      progressed = true;
      next++;
    }
    if (skippedTo !== null) {
      await this.moveCursorPastSkipped(skippedTo);
      progressed = true;
    }
    if (next > head) {
      this.caughtUp = true;
      await this.notifyUnconfirmed();
    }
    return { progressed, idle: false };
  }

  /**
   * Caught up with the chain: subscriptions asking for `pending` hear of the matching transfers the node
   * holds unconfirmed. Each is written once (the outbox's unique index), however often it is seen.
   */
  private async notifyUnconfirmed(): Promise<void> {
    const { follower } = this.options;
    const addresses = this.sync.matcher.pendingAddresses();
    if (follower.unconfirmed === undefined || addresses.length === 0) return;
    const matches = (await follower.unconfirmed(addresses)).flatMap((transfer) =>
      this.sync.matcher
        .match(transfer)
        .filter((webhook) => webhook.notifyPending)
        .map((webhook) => ({ webhook, transfer })),
    );
    if (matches.length === 0) return;
    const now = this.now();
    await this.transact(async (trx) => {
      for (const { webhook, transfer } of matches) {
        await enqueueNotification(trx, webhook, transfer, 'pending', now);
      }
      return true;
    });
  }

  /**
   * True unless the block's parent differs from the last block processed below it: the parent must be that
   * very block (height and hash), since the heights between were read as skipped. With no block kept below
   * (just started, or idle until now) there is nothing to compare.
   */
  private async buildsOnKnownChain(block: FollowedBlock): Promise<boolean> {
    const below = await this.lastKnownBlockBelow(block.number);
    return below === null || (below.number === block.parent.number && below.hash === block.parent.hash);
  }

  private async cursor(): Promise<{ number: bigint; hash: string } | null> {
    const row = await this.options.db
      .selectFrom('chain_cursors')
      .select(['block_number', 'block_hash'])
      .where('chain', '=', this.options.chain)
      .where('network', '=', this.options.network)
      .executeTakeFirst();
    return row ? { number: BigInt(row.block_number), hash: row.block_hash } : null;
  }

  private async lastKnownBlockBelow(height: bigint): Promise<BlockParent | null> {
    const row = await this.options.db
      .selectFrom('chain_blocks')
      .select(['block_number', 'block_hash'])
      .where('chain', '=', this.options.chain)
      .where('network', '=', this.options.network)
      .where('block_number', '<', Number(height))
      .orderBy('block_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { number: BigInt(row.block_number), hash: row.block_hash } : null;
  }

  /** The blocks kept at `tip` and below, newest first: those a reorg can replace and the one below them. */
  private async knownBlocksFrom(tip: bigint): Promise<BlockParent[]> {
    const rows = await this.options.db
      .selectFrom('chain_blocks')
      .select(['block_number', 'block_hash'])
      .where('chain', '=', this.options.chain)
      .where('network', '=', this.options.network)
      .where('block_number', '<=', Number(tip))
      .where('block_number', '>=', Number(tip) - this.options.follower.finality.reorgDepth)
      .orderBy('block_number', 'desc')
      .execute();
    return rows.map((row) => ({ number: BigInt(row.block_number), hash: row.block_hash }));
  }

  private async hasPendingEvents(): Promise<boolean> {
    const row = await this.options.db
      .selectFrom('pending_events')
      .select('id')
      .where('chain', '=', this.options.chain)
      .where('network', '=', this.options.network)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  private async moveCursorIdle(number: bigint): Promise<void> {
    await this.transact(async (trx) => {
      // Hashes of skipped blocks are unknown: drop the old ones so no stale parent check fires later.
      await trx
        .deleteFrom('chain_blocks')
        .where('chain', '=', this.options.chain)
        .where('network', '=', this.options.network)
        .execute();
      await this.saveCursor(trx, number, '');
      return false;
    });
  }

  /**
   * Heights up to `height` hold no block: only the cursor moves. No hash is kept for them, so the next
   * block's parent is compared with the last real block.
   */
  private async moveCursorPastSkipped(height: bigint): Promise<void> {
    await this.transact(async (trx) => {
      await this.saveCursor(trx, height, '');
      return false;
    });
  }

  /** Everything one block changes, atomically: outbox rows, parked and released events, hash, cursor. */
  private async commit(block: FollowedBlock): Promise<void> {
    const { chain, network } = this.options;
    const now = this.now();
    const matches = block.transfers.flatMap((transfer) =>
      this.sync.matcher.match(transfer).map((webhook) => ({ webhook, transfer })),
    );
    await this.transact(async (trx) => {
      let queued = false;
      for (const { webhook, transfer } of matches) {
        if (webhook.confirmations <= 1) {
          await enqueueNotification(trx, webhook, transfer, 'transfer', now);
          queued = true;
          continue;
        }
        await trx
          .insertInto('pending_events')
          .values({
            id: randomUUID(),
            webhook_id: webhook.id,
            chain,
            network,
            block_number: Number(block.number),
            block_hash: block.hash,
            ready_at_block: Number(block.number) + webhook.confirmations - 1,
            event: serializeTransfer(transfer),
          })
          .execute();
      }
      if (await this.releaseConfirmed(trx, block.number, now)) queued = true;
      await trx
        .insertInto('chain_blocks')
        .values({
          chain,
          network,
          block_number: Number(block.number),
          block_hash: block.hash,
          parent_hash: block.parent.hash,
        })
        .onConflict((oc) =>
          oc
            .columns(['chain', 'network', 'block_number'])
            .doUpdateSet({ block_hash: block.hash, parent_hash: block.parent.hash }),
        )
        .execute();
      await trx
        .deleteFrom('chain_blocks')
        .where('chain', '=', chain)
        .where('network', '=', network)
        .where('block_number', '<', Number(block.number) - this.options.follower.finality.reorgDepth)
        .execute();
      await this.saveCursor(trx, block.number, block.hash);
      return queued;
    });
    if (matches.length > 0) {
      this.options.logger.info(
        { chain, network, block: block.number.toString(), matches: matches.length },
        'block matched',
      );
    }
  }

  /**
   * Parked events deep enough now become notifications (their subscription may have gone since). True when
   * any did.
   */
  private async releaseConfirmed(trx: Transaction<Database>, head: bigint, now: Date): Promise<boolean> {
    const { chain, network } = this.options;
    const ready = await trx
      .selectFrom('pending_events')
      .innerJoin('webhooks', 'webhooks.id', 'pending_events.webhook_id')
      .select([
        'pending_events.id',
        'pending_events.webhook_id',
        'pending_events.event',
        'webhooks.user_id',
        'webhooks.deleted_at',
        'webhooks.is_active',
      ])
      .where('pending_events.chain', '=', chain)
      .where('pending_events.network', '=', network)
      .where('pending_events.ready_at_block', '<=', Number(head))
      .execute();
    let queued = false;
    for (const row of ready) {
      if (row.deleted_at === null && row.is_active === 1) {
        await enqueueNotification(
          trx,
          { id: row.webhook_id, userId: row.user_id },
          deserializeTransfer(row.event),
          'transfer',
          now,
        );
        queued = true;
      }
      await trx.deleteFrom('pending_events').where('id', '=', row.id).execute();
    }
    return queued;
  }

  /**
   * The block after `tip` does not build on the blocks we processed: walk back through the kept blocks to
   * the last one the node still has at its height, then drop what was built above it. A node answering
   * that it has not reached a kept height is behind and cannot tell: the step fails and is retried. With
   * none of the kept blocks left (a reorg deeper than the family's reorg depth), everything kept is
   * dropped and the watcher reads again from below the oldest. Events not yet notified (parked, or queued
   * and not yet attempted) are dropped; a notified transfer that left the chain gets a `reverted`
   * notification for subscriptions that ask for them.
   */
  private async unwind(tip: bigint): Promise<void> {
    const { chain, network, follower, logger } = this.options;
    const known = await this.knownBlocksFrom(tip);
    let ancestor = (known.at(-1)?.number ?? tip + 1n) - 1n;
    for (const block of known) {
      const canonical = await follower.read(block.number);
      // No block at a height the node served before: this answer came from a node that is behind (one of
      // a pool, or restarted), which cannot tell where the chains part. Walking on down would take back
      // blocks still on the chain; the step is retried until a node that has them answers.
      if (canonical.kind === 'not-yet') {
        throw new NodeError(
          chain,
          network,
          `${chain} ${network} node has no block ${block.number} any more (behind?): reorg unwinding waits`,
        );
      }
      if (canonical.kind === 'block' && canonical.block.hash === block.hash) {
        ancestor = block.number;
        break;
      }
    }
    const now = this.now();
    logger.warn({ chain, network, from: tip.toString(), to: ancestor.toString() }, 'reorg: unwinding');
    await this.transact(async (trx) => {
      const above = (table: 'pending_events' | 'chain_blocks') =>
        trx
          .deleteFrom(table)
          .where('chain', '=', chain)
          .where('network', '=', network)
          .where('block_number', '>', Number(ancestor));
      await above('pending_events').execute();
      await above('chain_blocks').execute();
      // The notifications of transfers in the dropped blocks that are still on the chain as far as we know.
      const orphaned = await trx
        .selectFrom('notifications')
        .innerJoin('webhooks', 'webhooks.id', 'notifications.webhook_id')
        .select([
          'notifications.id',
          'notifications.webhook_id',
          'notifications.txid',
          'notifications.payload',
          'notifications.block_hash',
          'notifications.log_index',
          'webhooks.user_id',
          'webhooks.notify_reverted',
        ])
        .where('notifications.chain', '=', chain)
        .where('notifications.network', '=', network)
        .where('notifications.event', '=', 'transfer')
        .where('notifications.left_chain_at', 'is', null)
        .where('notifications.block_number', '>', Number(ancestor))
        .execute();
      for (const row of orphaned) {
        await this.takeBack(trx, row, now);
      }
      const base = await trx
        .selectFrom('chain_blocks')
        .select('block_hash')
        .where('chain', '=', chain)
        .where('network', '=', network)
        .where('block_number', '=', Number(ancestor))
        .executeTakeFirst();
      await this.saveCursor(trx, ancestor, base?.block_hash ?? '');
      // A `reverted` may have been queued (or a retry cancelled): a spare wake-up costs one claim.
      return orphaned.length > 0;
    });
  }

  /**
   * A notified transfer left the chain. Never sent: its row goes. Otherwise it leaves the once-only index
   * (`left_chain_at`), so the transfer is notified again under a new id if a block includes it again; a
   * retry still waiting is cancelled (it must never go out after the chain dropped it); and subscriptions
   * that ask hear `reverted`. The subscription's `pending` for it is retired too: back in the mempool, the
   * transfer is pending again.
   */
  private async takeBack(trx: Transaction<Database>, row: OrphanedNotification, now: Date): Promise<void> {
    const at = now.toISOString();
    // Never sent: drop it, unless the deliverer claimed it since we looked (then it counts as sent).
    const dropped = await trx
      .deleteFrom('notifications')
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('attempts', '=', 0)
      .executeTakeFirst();
    if (Number(dropped.numDeletedRows) === 0) {
      await trx
        .updateTable('notifications')
        .set({ status: 'cancelled', updated_at: at })
        .where('id', '=', row.id)
        .where('status', 'in', ['pending', 'failed'])
        .execute();
      await trx.updateTable('notifications').set({ left_chain_at: at }).where('id', '=', row.id).execute();
      if (row.notify_reverted === 1) {
        const sent = JSON.parse(row.payload) as StoredPayload;
        await enqueueReverted(
          trx,
          { id: row.webhook_id, userId: row.user_id },
          transferOf(sent, row.block_hash, row.log_index),
          row.id,
          now,
        );
      }
    }
    await trx
      .updateTable('notifications')
      .set({ left_chain_at: at })
      .where('webhook_id', '=', row.webhook_id)
      .where('txid', '=', row.txid)
      .where('log_index', '=', row.log_index)
      .where('event', '=', 'pending')
      .where('left_chain_at', 'is', null)
      .execute();
  }

  /**
   * One transaction of the watcher: the lease is renewed first (or the work aborted), and when `work` says
   * it queued notifications, the deliverers are told: by a NOTIFY that fires on commit (other instances),
   * and once committed, in this process.
   */
  private async transact(work: (trx: Transaction<Database>) => Promise<boolean>): Promise<void> {
    const { outbox } = this.options;
    const queued = await this.options.db.transaction().execute(async (trx) => {
      await this.holdLease(trx);
      const queued = await work(trx);
      if (queued) await outbox?.announce(trx);
      return queued;
    });
    if (queued) outbox?.committed();
  }

  /** Inside a block transaction: renew the lease, or abort when another instance took it over. */
  private async holdLease(trx: Transaction<Database>): Promise<void> {
    if (!(await this.lease.renew(trx, this.now()))) {
      throw new LeaseLost(`lease ${this.lease.name} taken over`);
    }
  }

  private async saveCursor(trx: Transaction<Database>, number: bigint, hash: string): Promise<void> {
    const { chain, network } = this.options;
    const values = { block_number: Number(number), block_hash: hash, updated_at: this.now().toISOString() };
    await trx
      .insertInto('chain_cursors')
      .values({ chain, network, ...values })
      .onConflict((oc) => oc.columns(['chain', 'network']).doUpdateSet(values))
      .execute();
  }
}

/** The transfer a sent notification described, rebuilt from its payload, for its `reverted` twin. */
function transferOf(payload: StoredPayload, blockHash: string, logIndex: number): TransferEvent {
  return {
    chain: payload.blockchain as ChainName,
    network: payload.network as Network,
    blockNumber: BigInt(payload.blocknumber ?? 0),
    blockHash,
    txid: payload.txid,
    logIndex,
    from: payload.from,
    to: payload.to,
    contractAddress: payload.contractaddress,
    tokenId: payload.tokenid,
    type: payload.type,
    amountRaw: BigInt(payload.amount_raw),
    decimals: payload.decimals,
    time: new Date(`${payload.datetime.replace(' ', 'T')}Z`),
  };
}
