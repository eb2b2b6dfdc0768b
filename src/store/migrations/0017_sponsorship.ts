import type { Kysely, Migration } from 'kysely';
import { createIndex } from './create-index.ts';

/**
 * Fee sponsorship (src/sponsorship/): the sponsor of each chain and network (an operator's custodial
 * address, its key sealed with the master key so jobs can sign at any hour), the jobs (paymaster requests,
 * sweeps' transfers, activations) that live in the database so a restart resumes or unwinds them, the
 * ledger of every cost a sponsor bore, by user, and the sweeps. A plan's allowance of sponsored fees is a
 * JSON object of chain -> amount in the chain's coin.
 */
export const sponsorship: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('sponsors')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('key_sealed', 'text', (c) => c.notNull())
      // Base units of the coin the sponsor may spend per period; null: no limit.
      .addColumn('budget', 'text')
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('sponsors_pk', ['chain', 'network'])
      .execute();
    await db.schema
      .createTable('sweeps')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('to', 'text', (c) => c.notNull())
      .addColumn('contract', 'text')
      .addColumn('min_units', 'text')
      // The addresses asked for (JSON array); null: every address of the user on the chain and network.
      .addColumn('from_json', 'text')
      // The password the addresses open with, sealed with the master key until the sweep has its jobs.
      .addColumn('password_sealed', 'text')
      // `pending` until its jobs are made, `running` until they end, then `completed`.
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('skipped_json', 'text', (c) => c.notNull())
      .addColumn('callback_url', 'text')
      .addColumn('callback_secret_sealed', 'text')
      .addColumn('callback_state', 'text')
      .addColumn('callback_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('callback_next_at', 'text')
      .addColumn('callback_error', 'text')
      .addColumn('lease_token', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sponsor_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      // `paymaster`, `sweep` (one address of a sweep) or `activation`.
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('sweep_id', 'text', (c) => c.references('sweeps.id').onDelete('cascade'))
      // `pending`, `processing`, `completed` or `failed`, with `reason` for a failed one.
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('transfer_json', 'text', (c) => c.notNull())
      // The key of the transfer's sender, sealed with the master key while the job runs; erased at its end.
      .addColumn('owner_key_sealed', 'text')
      // Base units reserved from the sponsor's budget and the user's allowance while the job is open.
      .addColumn('reserved', 'text', (c) => c.notNull())
      .addColumn('txid', 'text')
      .addColumn('notes_json', 'text', (c) => c.notNull())
      .addColumn('callback_url', 'text')
      .addColumn('callback_secret_sealed', 'text')
      .addColumn('callback_state', 'text')
      .addColumn('callback_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('callback_next_at', 'text')
      .addColumn('callback_error', 'text')
      .addColumn('lease_token', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await createIndex(db, 'sponsor_jobs_open', 'sponsor_jobs', ['status', 'locked_until']);
    await createIndex(db, 'sponsor_jobs_by_user', 'sponsor_jobs', ['user_id', 'chain', 'network', 'id']);
    await createIndex(db, 'sponsor_jobs_by_sweep', 'sponsor_jobs', ['sweep_id']);
    await createIndex(db, 'sponsor_jobs_callbacks', 'sponsor_jobs', ['callback_state', 'callback_next_at']);
    await db.schema
      .createTable('sponsor_ledger')
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('what', 'text', (c) => c.notNull())
      .addColumn('units', 'text', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('sponsor_ledger_once', ['job_id', 'what', 'txid'])
      .execute();
    await createIndex(db, 'sponsor_ledger_by_place', 'sponsor_ledger', ['chain', 'network', 'created_at']);
    await createIndex(db, 'sponsor_ledger_by_user', 'sponsor_ledger', ['user_id', 'chain', 'created_at']);
    await db.schema.alterTable('plans').addColumn('sponsored_json', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('plans').dropColumn('sponsored_json').execute();
    await db.schema.dropTable('sponsor_ledger').execute();
    await db.schema.dropTable('sponsor_jobs').execute();
    await db.schema.dropTable('sweeps').execute();
    await db.schema.dropTable('sponsors').execute();
  },
};
