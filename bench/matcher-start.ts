import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserDirectory } from '../src/accounts/users.ts';
import { loadConfig } from '../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../src/gateway-migrations.ts';
import { openReadyStore } from '../src/store/ready-store.ts';
import { SubscriptionSync } from '../src/webhooks/subscription-sync.ts';
import type { Benchmark } from './types.ts';

const COUNT = 1_000_000;
const BATCH = 1_000;

/**
 * The JS heap plus ArrayBuffer memory, which lives outside it: typed arrays count as much as objects. Read
 * after collections that a turn of the event loop separates, until the reading stops falling: what the
 * million inserts before the load leave behind (weakly held caches, buffers freed once their owners are
 * finalized) takes more than one collection to go, and counted against the load it made the figure
 * negative.
 */
async function heapMiB(): Promise<number> {
  let reading = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 10; round++) {
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    const now = (heapUsed + arrayBuffers) / 1_048_576;
    if (now >= reading - 0.01) return Math.min(now, reading);
    reading = now;
  }
  return reading;
}

/**
 * Goal 3's memory and start: 1,000,000 webhooks of one chain in SQLite, loaded into the matcher as a
 * watcher does at start (`SubscriptionSync.refresh`), timed; and the heap the loaded matcher holds per
 * subscription. Needs `--expose-gc` (npm run bench passes it) for a fair heap reading.
 */
export const matcherStart: Benchmark = {
  name: 'webhook matcher: loading 1,000,000 subscriptions at start, and their memory',
  async run() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
    const config = loadConfig({
      DATA_DIR: dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`,
      LOG_LEVEL: 'silent',
    });
    const store = await openReadyStore(config, GATEWAY_MIGRATIONS);
    try {
      const users = new UserDirectory(store.db, config.defaultPlan);
      const owners = await Promise.all(
        Array.from({ length: 50 }, (_, i) => users.createUser(`u${i}@example.com`)),
      );
      const now = new Date().toISOString();
      await store.db.transaction().execute(async (trx) => {
        for (let start = 0; start < COUNT; start += BATCH) {
          const rows = Array.from({ length: BATCH }, (_, i) => ({
            id: randomUUID(),
            user_id: owners[(start + i) % owners.length]!.id,
            chain: 'ethereum',
            network: 'mainnet',
            url: 'https://example.com/hook',
            from_address: null,
            to_address: `0x${randomBytes(20).toString('hex')}`,
            contract_address: null,
            token_id: null,
            type: null,
            confirmations: 0,
            notify_reverted: 0,
            notify_pending: 0,
            retry_policy: 'none',
            secret_sealed: 'x',
            previous_secret_sealed: null,
            previous_secret_expires_at: null,
            is_active: 1,
            is_invalid: 0,
            invalid_reason: null,
            change_version: start + i + 1,
            created_at: now,
            updated_at: now,
            deleted_at: null,
          }));
          await trx.insertInto('webhooks').values(rows).execute();
        }
        await trx
          .insertInto('watch_versions')
          .values({ chain: 'ethereum', network: 'mainnet', version: COUNT })
          .onConflict((oc) => oc.columns(['chain', 'network']).doUpdateSet({ version: COUNT }))
          .execute();
      });
      const before = await heapMiB();
      const started = performance.now();
      const sync = new SubscriptionSync(store.db, 'ethereum', 'mainnet');
      await sync.refresh();
      const loadMs = performance.now() - started;
      if (sync.matcher.size !== COUNT)
        throw new Error(`loaded ${sync.matcher.size} of ${COUNT} subscriptions`);
      const bytesEach = (((await heapMiB()) - before) * 1_048_576) / COUNT;
      return [
        {
          what: 'time to load 1,000,000 subscriptions from the database',
          unit: 's',
          measured: loadMs / 1000,
          goal: { on: 'value', op: '<=', value: 5 },
        },
        {
          what: 'matcher memory per subscription, heap and typed arrays (1,000,000 loaded)',
          unit: 'bytes',
          measured: bytesEach,
          goal: { on: 'value', op: '<=', value: 200 },
        },
      ];
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
