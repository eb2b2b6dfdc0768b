import type { Kysely, Migration } from 'kysely';
import { createIndex } from '../../../store/migrations/create-index.ts';

/**
 * Bitcoin coins held by sends (src/chains/bitcoin/coin-reservations.ts): one row per coin a send chose,
 * from its choice until its transaction is seen spending it, or until the lease ends. The primary key is
 * what keeps two sends (of one gateway or of several sharing the database) from taking the same coin.
 */
export const bitcoinCoinReservations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('bitcoin_coin_reservations')
      .addColumn('network', 'text', (c) => c.notNull())
      // The coin: the transaction that made it and its output's index.
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'integer', (c) => c.notNull())
      // The address holding it, for whoever reads the table.
      .addColumn('address', 'text', (c) => c.notNull())
      // A random id per send: its rows are renewed, marked and given back together.
      .addColumn('holder', 'text', (c) => c.notNull())
      // The transaction that spends it, once broadcast.
      .addColumn('spending_txid', 'text')
      .addColumn('reserved_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('bitcoin_coin_reservations_pk', ['network', 'txid', 'vout'])
      .execute();
    await createIndex(db, 'bitcoin_coin_reservations_by_holder', 'bitcoin_coin_reservations', ['holder']);
    await createIndex(db, 'bitcoin_coin_reservations_by_expiry', 'bitcoin_coin_reservations', ['expires_at']);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('bitcoin_coin_reservations').execute();
  },
};
