// Migration 0010 on an outbox written before it: a transfer that left the chain (cancelled, or with a
// `reverted` twin) leaves the once-only index, its `reverted` names it, and a transfer still on the chain
// keeps its place, so a replayed block still adds nothing while a re-inclusion is a new notification.
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import { migrateToLatest, openStore } from '../../src/store/store.ts';
import { freshDatabase, testDatabase } from '../helpers/gateway.ts';

const database = freshDatabase();
afterAll(() => database.drop());

describe(`migration 0010_notification_reinclusion on ${testDatabase()}`, () => {
  it('marks the transfers that left the chain and links each reverted to its transfer', async () => {
    const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
    const store = await openStore(loadConfig(database.env).databaseUrl, options);
    try {
      const before = Object.fromEntries(
        Object.entries(GATEWAY_MIGRATIONS).filter(([name]) => name < '0010_notification_reinclusion'),
      );
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => before },
        ...(store.schema === undefined ? {} : { migrationTableSchema: store.schema }),
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const at = new Date().toISOString();
      const userId = randomUUID();
      const webhookId = randomUUID();
      await sql`insert into users (id, email, created_at, number) values (${userId}, ${`${userId}@example.com`}, ${at}, 1)`.execute(
        store.db,
      );
      await sql`insert into webhooks (id, user_id, chain, network, url, to_address, confirmations, notify_reverted,
          notify_pending, retry_policy, secret_sealed, is_active, is_invalid, change_version, created_at, updated_at)
        values (${webhookId}, ${userId}, 'tron', 'mainnet', 'https://example.com/', 'T', 0, 1, 0, 'none', 'x', 1, 0, 1,
          ${at}, ${at})`.execute(store.db);
      const notification = async (id: string, event: string, txid: string, status: string) => {
        await sql`insert into notifications (id, webhook_id, user_id, chain, network, event, txid, log_index, block_number,
            block_hash, payload, status, attempts, next_attempt_at, block_time, created_at, updated_at)
          values (${id}, ${webhookId}, ${userId}, 'tron', 'mainnet', ${event}, ${txid}, 0, 7, 'hash-a', '{}', ${status}, 1,
            ${at}, ${at}, ${at}, ${at})`.execute(store.db);
      };
      await notification('reverted-transfer', 'transfer', 'tx-1', 'delivered');
      await notification('its-reverted', 'reverted', 'tx-1', 'delivered');
      await notification('cancelled-transfer', 'transfer', 'tx-2', 'cancelled');
      await notification('standing-transfer', 'transfer', 'tx-3', 'delivered');

      await migrateToLatest(store, GATEWAY_MIGRATIONS);
      const rows = await store.db
        .selectFrom('notifications')
        .select(['id', 'left_chain_at', 'reverts_id'])
        .orderBy('id')
        .execute();
      const left = (id: string) => rows.find((row) => row.id === id)?.left_chain_at ?? null;
      expect(left('reverted-transfer')).toBe(at);
      expect(left('cancelled-transfer')).toBe(at);
      expect(left('standing-transfer')).toBeNull();
      expect(left('its-reverted')).toBeNull();
      expect(rows.find((row) => row.id === 'its-reverted')?.reverts_id).toBe('reverted-transfer');

      // The same (webhook, transfer, event, block) again: a new row beside one that left the chain, none
      // beside one still on it.
      const again = (id: string, txid: string) =>
        sql`insert into notifications (id, webhook_id, user_id, chain, network, event, txid, log_index, block_number,
            block_hash, payload, status, attempts, next_attempt_at, block_time, created_at, updated_at)
          values (${id}, ${webhookId}, ${userId}, 'tron', 'mainnet', 'transfer', ${txid}, 0, 7, 'hash-a', '{}', 'pending', 0,
            ${at}, ${at}, ${at}, ${at})`.execute(store.db);
      await again('reincluded-1', 'tx-1');
      await again('reincluded-2', 'tx-2');
      await expect(again('replayed-3', 'tx-3')).rejects.toThrow();
    } finally {
      await store.close();
    }
  });
});
