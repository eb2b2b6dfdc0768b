import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhooksTable } from '../../src/store/schema.ts';
import { SubscriptionSync } from '../../src/webhooks/subscription-sync.ts';
import { bumpWatchVersion } from '../../src/webhooks/watch-versions.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { type DeliveryBench, openDeliveryBench, webhookRow } from '../webhooks/fixtures.ts';

let bench: DeliveryBench;
beforeAll(async () => {
  bench = await openDeliveryBench();
});
afterAll(() => bench.close());

const NETWORK = 'testnet';
const to = (n: number) => `T${String(n).padStart(33, '0')}`;
const transferTo = (address: string) => ({
  from: 'Tsender',
  to: address,
  contractAddress: null,
  tokenId: null,
  type: 'TRX',
});

function row(id: string, address: string, version: number, live = true): WebhooksTable {
  return webhookRow({
    id,
    user_id: bench.userId,
    network: NETWORK,
    to_address: address,
    is_active: live ? 1 : 0,
    change_version: version,
  });
}

async function setVersion(version: number): Promise<void> {
  await bench.store.db
    .insertInto('watch_versions')
    .values({ chain: 'tron', network: NETWORK, version })
    .onConflict((oc) => oc.columns(['chain', 'network']).doUpdateSet({ version }))
    .execute();
}

describe(`subscriptions loaded in pages on ${testDatabase()}`, () => {
  it('loads every live row across pages, ties of a version included, then follows changes', async () => {
    // 30 rows, three to a version: pages of 4 end amid a version's rows; every fifth row is inactive.
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await bench.store.db
      .insertInto('webhooks')
      .values(ids.map((id, i) => row(id, to(i), Math.floor(i / 3) + 1, i % 5 !== 0)))
      .execute();
    await setVersion(10);
    const sync = new SubscriptionSync(bench.store.db, 'tron', NETWORK, 4);
    await sync.refresh();
    expect(sync.matcher.size).toBe(24);
    for (let i = 0; i < ids.length; i++) {
      const found = sync.matcher.match(transferTo(to(i))).map((w) => w.id);
      expect(found).toEqual(i % 5 === 0 ? [] : [ids[i]]);
    }

    // A moved address, a deletion and a reactivation, each stamped with a new version as the service does.
    const stamp = (id: string, change: Partial<WebhooksTable>) =>
      bench.store.db.transaction().execute(async (trx) => {
        const version = await bumpWatchVersion(trx, 'tron', NETWORK);
        await trx
          .updateTable('webhooks')
          .set({ ...change, change_version: version })
          .where('id', '=', id)
          .execute();
      });
    await stamp(ids[1]!, { to_address: to(100) });
    await stamp(ids[2]!, { deleted_at: new Date().toISOString() });
    await stamp(ids[5]!, { is_active: 1 });
    await sync.refresh();
    expect(sync.matcher.match(transferTo(to(1)))).toEqual([]);
    expect(sync.matcher.match(transferTo(to(100))).map((w) => w.id)).toEqual([ids[1]]);
    expect(sync.matcher.match(transferTo(to(2)))).toEqual([]);
    expect(sync.matcher.match(transferTo(to(5))).map((w) => w.id)).toEqual([ids[5]]);
    expect(sync.matcher.size).toBe(24);

    // A watcher starting now loads the same set, the deleted and inactive rows unread.
    const fresh = new SubscriptionSync(bench.store.db, 'tron', NETWORK, 4);
    await fresh.refresh();
    expect(fresh.matcher.size).toBe(24);
    expect(fresh.matcher.match(transferTo(to(100))).map((w) => w.id)).toEqual([ids[1]]);
  });
});
