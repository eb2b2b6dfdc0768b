import { type Kysely, type Migration, sql } from 'kysely';
import { createIndex } from './create-index.ts';

/**
 * A send's history row is written before the node gets the transaction, without an answer
 * (`http_status` null) until the request or, after a restart, the settler (services/send-settler.ts)
 * gives it one. The settler reads those rows often; this index holds only them, so it stays as small as
 * the sends in flight. The EVM nonce reconciler asks whether a stored transaction has its row (one without
 * was never handed to the node) by txid.
 */
export const unsettledSends: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('transactions_unsettled')
      .on('transactions')
      .column('id')
      .where(sql.ref('http_status'), 'is', null)
      .execute();
    await createIndex(db, 'transactions_by_txid', 'transactions', ['txid']);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('transactions_by_txid').execute();
    await db.schema.dropIndex('transactions_unsettled').execute();
  },
};
