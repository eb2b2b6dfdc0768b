import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { createIndex } from './create-index.ts';

/** Custodial addresses (keys sealed, or none kept for unsecure ones) and the history of sent transactions. */
export const custody: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('addresses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      // Sealed private key (see custody/key-vault.ts); null for an unsecure address, whose key the caller keeps.
      .addColumn('sealed_key', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('addresses_owner')
      .on('addresses')
      .columns(['user_id', 'chain', 'network', 'address'])
      .unique()
      .execute();

    // Chaingateway lists transactions with integer ids.
    const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await db.schema
      .createTable('transactions')
      .addColumn('id', isPostgres ? sql`bigserial` : 'integer', (c) =>
        isPostgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('blockchain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('txid', 'text')
      .addColumn('from', 'text')
      .addColumn('to', 'text')
      .addColumn('contractaddress', 'text')
      .addColumn('amount', 'text')
      .addColumn('tokenid', 'text')
      .addColumn('response_json', 'text')
      .addColumn('http_status', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await createIndex(db, 'transactions_owner', 'transactions', ['user_id', 'blockchain', 'network', 'id']);
  },
};
