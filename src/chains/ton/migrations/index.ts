import type { Migration } from 'kysely';
import { tonWalletTurns } from './0020_ton_wallet_turns.ts';

/**
 * The TON family's tables (whose turn it is to send from a wallet, src/chains/ton/wallet-turns.ts), run
 * among the shared migrations by name. Names never change once released: a database knows them by these.
 */
export const tonMigrations: Readonly<Record<string, Migration>> = {
  '0020_ton_wallet_turns': tonWalletTurns,
};
