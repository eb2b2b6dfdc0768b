import type { Kysely, Migration } from 'kysely';
import { createIndex } from '../../../store/migrations/create-index.ts';

/**
 * Bitcoin sends look up which unconfirmed transactions the gateway broadcast itself (their change may be
 * spent before it confirms): reservations by the transaction that spent them.
 */
export const bitcoinReservationsBySpender: Migration = {
  async up(db: Kysely<unknown>) {
    await createIndex(db, 'bitcoin_coin_reservations_by_spender', 'bitcoin_coin_reservations', [
      'network',
      'spending_txid',
    ]);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('bitcoin_coin_reservations_by_spender').execute();
  },
};
