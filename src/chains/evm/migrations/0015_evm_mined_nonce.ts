import type { Kysely, Migration } from 'kysely';

/**
 * `evm_nonces.mined_nonce`: the highest count of mined nonces any send or reconcile pass has acted on
 * for the address. The nonce store forgets a send once mined; a send whose node reads are older than
 * that count would miss it in its sum of sends in flight while its balance may not show it spent yet,
 * so it reads again (src/chains/evm/nonce-store.ts).
 */
export const evmMinedNonce: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('evm_nonces')
      .addColumn('mined_nonce', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('evm_nonces').dropColumn('mined_nonce').execute();
  },
};
