import type { Kysely, Migration } from 'kysely';

/**
 * HD wallets beside single-key addresses: one sealed seed per wallet, its addresses derived by index. A
 * derived address is a row of `addresses` that points at its wallet and keeps no key of its own, so it
 * counts against the addresses quota and is unique per user like any other; deleting the wallet deletes it.
 */
export const hdWallets: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('wallets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      // The BIP-39 entropy sealed with the wallet password (custody/key-vault.ts); never stored plain.
      .addColumn('sealed_seed', 'text', (c) => c.notNull())
      .addColumn('account_path', 'text', (c) => c.notNull())
      .addColumn('account_xpub', 'text', (c) => c.notNull())
      .addColumn('next_index', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('wallets_owner')
      .on('wallets')
      .columns(['user_id', 'chain', 'network', 'name'])
      .unique()
      .execute();

    // SQLite adds one column per statement.
    await db.schema
      .alterTable('addresses')
      .addColumn('wallet_id', 'text', (c) => c.references('wallets.id').onDelete('cascade'))
      .execute();
    await db.schema.alterTable('addresses').addColumn('derivation_index', 'integer').execute();
    // Single-key rows have no wallet; nulls never collide, on SQLite and Postgres alike.
    await db.schema
      .createIndex('addresses_wallet')
      .on('addresses')
      .columns(['wallet_id', 'derivation_index'])
      .unique()
      .execute();
  },
};
