import type { Kysely, Migration } from 'kysely';
import { createIndex } from '../../../store/migrations/create-index.ts';

/**
 * EVM nonce allocation (src/chains/evm/nonce-manager.ts): the next nonce per sending address, and every
 * nonce handed out until the chain has mined it. `integer` is 32-bit on Postgres: enough for any real
 * account's nonce (2^31 transactions).
 */
export const evmNonces: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('evm_nonces')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      // Lower-case 0x address.
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('next_nonce', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('evm_nonces_pk', ['chain', 'network', 'address'])
      .execute();

    await db.schema
      .createTable('evm_pending')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('nonce', 'integer', (c) => c.notNull())
      // reserved: handed out, nothing signed yet; sent: raw_tx signed and broadcast (or being);
      // free: its send failed before any node took it, so the next send reuses it.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('tx_hash', 'text')
      .addColumn('raw_tx', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('evm_pending_pk', ['chain', 'network', 'address', 'nonce'])
      .execute();
    await createIndex(db, 'evm_pending_tx_hash', 'evm_pending', ['tx_hash']);
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('evm_pending').execute();
    await db.schema.dropTable('evm_nonces').execute();
  },
};
