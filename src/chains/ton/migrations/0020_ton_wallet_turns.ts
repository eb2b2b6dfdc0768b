import type { Kysely, Migration } from 'kysely';

/**
 * Whose turn it is to send from a TON wallet (src/chains/ton/wallet-turns.ts): one row per wallet the
 * gateway has sent from, naming the send that holds it until its lease ends, and the newest seqno the
 * wallet was seen to take. Gateway instances sharing the database take turns through it.
 */
export const tonWalletTurns: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('ton_wallet_turns')
      .addColumn('network', 'text', (c) => c.notNull())
      // The wallet, raw (`0:<hex>`).
      .addColumn('wallet', 'text', (c) => c.notNull())
      // A random id per turn; null while nobody holds it.
      .addColumn('holder', 'text')
      .addColumn('expires_at', 'text')
      // The newest seqno a message of the wallet was seen to take; -1 while none.
      .addColumn('taken_seqno', 'integer', (c) => c.notNull().defaultTo(-1))
      .addPrimaryKeyConstraint('ton_wallet_turns_pk', ['network', 'wallet'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('ton_wallet_turns').execute();
  },
};
