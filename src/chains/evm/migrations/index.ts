import type { Migration } from 'kysely';
import { evmNonces } from './0003_evm_nonces.ts';
import { evmMinedNonce } from './0015_evm_mined_nonce.ts';

/**
 * The EVM family's tables (the nonce store's, src/chains/evm/nonce-store.ts), run among the shared
 * migrations by name. Names never change once released: a database knows them by these.
 */
export const evmMigrations: Readonly<Record<string, Migration>> = {
  '0003_evm_nonces': evmNonces,
  '0015_evm_mined_nonce': evmMinedNonce,
};
