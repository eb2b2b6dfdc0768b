import type { Migration } from 'kysely';
import { bitcoinCoinReservations } from './0014_bitcoin_coin_reservations.ts';
import { bitcoinReservationsBySpender } from './0016_bitcoin_reservations_by_spender.ts';

/**
 * The Bitcoin family's tables (the coins sends hold, src/chains/bitcoin/coin-reservations.ts), run among
 * the shared migrations by name. Names never change once released: a database knows them by these.
 */
export const bitcoinMigrations: Readonly<Record<string, Migration>> = {
  '0014_bitcoin_coin_reservations': bitcoinCoinReservations,
  '0016_bitcoin_reservations_by_spender': bitcoinReservationsBySpender,
};
