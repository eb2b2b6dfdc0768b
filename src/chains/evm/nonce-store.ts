/**
 * The rows behind the nonce manager (migration 0003_evm_nonces). Every change for one sending address
 * runs in a transaction that first locks that address's `evm_nonces` row: `SELECT ... FOR UPDATE` on
 * Postgres, so gateway instances sharing the database take turns; on SQLite the single connection
 * already runs one transaction at a time.
 */
import type { Kysely, Transaction } from 'kysely';

export type NonceDialect = 'sqlite' | 'postgres';

export interface EvmNoncesTable {
  chain: string;
  network: string;
  address: string;
  next_nonce: number;
  updated_at: string;
}

export type PendingState = 'reserved' | 'sent' | 'free';

export interface EvmPendingTable {
  chain: string;
  network: string;
  address: string;
  nonce: number;
  state: PendingState;
  tx_hash: string | null;
  raw_tx: string | null;
  created_at: string;
  updated_at: string;
}

/** The two tables, until src/store/schema.ts lists them. */
export interface EvmNonceDatabase {
  evm_nonces: EvmNoncesTable;
  evm_pending: EvmPendingTable;
}

/** One sending address on one chain and network; the address is stored lower-case. */
export interface NonceKey {
  chain: string;
  network: string;
  address: string;
}

export interface PendingNonce {
  nonce: number;
  state: PendingState;
  txHash: string | null;
  rawTx: string | null;
  createdAt: string;
}

/** What the node says about the address, read just before allocating. */
export interface NodeNonces {
  /** eth_getTransactionCount(latest): every nonce below is mined. */
  latest: number;
  /** eth_getTransactionCount(pending): also counts the node's pool. */
  pending: number;
}

type Trx = Transaction<EvmNonceDatabase>;

export class NonceStore {
  readonly #db: Kysely<EvmNonceDatabase>;
  readonly #dialect: NonceDialect;
  readonly #now: () => Date;

  constructor(db: Kysely<EvmNonceDatabase>, dialect: NonceDialect, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#dialect = dialect;
    this.#now = now;
  }

  /**
   * Hands out the next nonce: a freed one the chain still lacks, else max(stored next nonce, node's
   * pending count). Rows the chain has settled (below the mined count) are forgotten on the way.
   */
  allocate(key: NonceKey, node: NodeNonces): Promise<number> {
    return this.#locked(key, (trx, nextNonce, now) => this.#reserve(trx, key, node, nextNonce, now));
  }

  /**
   * Allocates a nonce and records the transaction `sign` makes with it, in one transaction: the row is
   * `sent` with its raw transaction (which `reconcile` can broadcast again) or not there at all. A process
   * that dies in between leaves no reserved nonce behind, which would hold every later send from the
   * address in the node's queue. `sign` runs under the address's lock: it must not call a node.
   */
  allocateSigned<Signed extends { hash: string; raw: string }>(
    key: NonceKey,
    node: NodeNonces,
    sign: (nonce: number) => Promise<Signed>,
  ): Promise<Signed & { nonce: number }> {
    return this.#locked(key, async (trx, nextNonce, now) => {
      const nonce = await this.#reserve(trx, key, node, nextNonce, now);
      const signed = await sign(nonce);
      await this.#update(trx, key, nonce, {
        state: 'sent',
        tx_hash: signed.hash,
        raw_tx: signed.raw,
        updated_at: now,
      });
      return { ...signed, nonce };
    });
  }

  async #reserve(trx: Trx, key: NonceKey, node: NodeNonces, nextNonce: number, now: string): Promise<number> {
    await this.#deletePending(trx, key).where('nonce', '<', node.latest).execute();
    // A freed nonce below the node's pending count has been filled by a send elsewhere.
    await this.#deletePending(trx, key)
      .where('state', '=', 'free')
      .where('nonce', '<', node.pending)
      .execute();
    const free = await trx
      .selectFrom('evm_pending')
      .select('nonce')
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .where('state', '=', 'free')
      .orderBy('nonce')
      .limit(1)
      .executeTakeFirst();
    if (free) {
      await this.#update(trx, key, free.nonce, { state: 'reserved', created_at: now, updated_at: now });
      return Number(free.nonce);
    }
    const nonce = Math.max(nextNonce, node.pending);
    await this.#setNext(trx, key, nonce + 1, now);
    await trx
      .insertInto('evm_pending')
      .values({
        ...key,
        nonce,
        state: 'reserved',
        tx_hash: null,
        raw_tx: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['chain', 'network', 'address', 'nonce']).doUpdateSet({
          state: 'reserved',
          tx_hash: null,
          raw_tx: null,
          created_at: now,
          updated_at: now,
        }),
      )
      .execute();
    return nonce;
  }

  /** Records the signed transaction before it is broadcast, so it can be sent again after a crash. */
  async markSent(key: NonceKey, nonce: number, txHash: string, rawTx: string | null): Promise<void> {
    await this.#db
      .updateTable('evm_pending')
      .set({ state: 'sent', tx_hash: txHash, raw_tx: rawTx, updated_at: this.#now().toISOString() })
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .where('nonce', '=', nonce)
      .execute();
  }

  /**
   * Gives back a nonce no node took: the next nonce moves down when it was the last one handed out
   * (with any freed ones right below it), otherwise it is kept free for the next send to fill the gap.
   */
  release(key: NonceKey, nonce: number): Promise<void> {
    return this.#locked(key, async (trx, nextNonce, now) => {
      if (nonce !== nextNonce - 1) {
        await this.#update(trx, key, nonce, { state: 'free', tx_hash: null, raw_tx: null, updated_at: now });
        return;
      }
      await this.#deletePending(trx, key).where('nonce', '=', nonce).execute();
      const freed = await trx
        .selectFrom('evm_pending')
        .select('nonce')
        .where('chain', '=', key.chain)
        .where('network', '=', key.network)
        .where('address', '=', key.address)
        .where('state', '=', 'free')
        .orderBy('nonce', 'desc')
        .execute();
      let next = nonce;
      for (const row of freed) {
        if (Number(row.nonce) !== next - 1) break;
        next -= 1;
      }
      if (next < nonce)
        await this.#deletePending(trx, key).where('nonce', '>=', next).where('state', '=', 'free').execute();
      await this.#setNext(trx, key, next, now);
    });
  }

  /** Forgets a nonce the chain has used for another transaction (a send from elsewhere took it). */
  async forget(key: NonceKey, nonce: number): Promise<void> {
    await this.#deletePending(this.#db, key).where('nonce', '=', nonce).execute();
  }

  async list(key: NonceKey): Promise<PendingNonce[]> {
    const rows = await this.#db
      .selectFrom('evm_pending')
      .select(['nonce', 'state', 'tx_hash', 'raw_tx', 'created_at'])
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .orderBy('nonce')
      .execute();
    return rows.map((r) => ({
      nonce: Number(r.nonce),
      state: r.state,
      txHash: r.tx_hash,
      rawTx: r.raw_tx,
      createdAt: r.created_at,
    }));
  }

  /** Stored next nonce, or null for an address that never sent through the manager. */
  async nextNonce(key: NonceKey): Promise<number | null> {
    const row = await this.#db
      .selectFrom('evm_nonces')
      .select('next_nonce')
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .executeTakeFirst();
    return row ? Number(row.next_nonce) : null;
  }

  /** Runs `work` holding the address's lock; creates the address's row on first use. */
  #locked<T>(key: NonceKey, work: (trx: Trx, nextNonce: number, now: string) => Promise<T>): Promise<T> {
    return this.#db.transaction().execute(async (trx) => {
      const now = this.#now().toISOString();
      await trx
        .insertInto('evm_nonces')
        .values({ ...key, next_nonce: 0, updated_at: now })
        .onConflict((oc) => oc.columns(['chain', 'network', 'address']).doNothing())
        .execute();
      let query = trx
        .selectFrom('evm_nonces')
        .select('next_nonce')
        .where('chain', '=', key.chain)
        .where('network', '=', key.network)
        .where('address', '=', key.address);
      if (this.#dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirstOrThrow();
      return work(trx, Number(row.next_nonce), now);
    });
  }

  #setNext(trx: Trx, key: NonceKey, next: number, now: string) {
    return trx
      .updateTable('evm_nonces')
      .set({ next_nonce: next, updated_at: now })
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .execute();
  }

  #update(trx: Trx, key: NonceKey, nonce: number, values: Partial<EvmPendingTable>) {
    return trx
      .updateTable('evm_pending')
      .set(values)
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address)
      .where('nonce', '=', nonce)
      .execute();
  }

  #deletePending(db: Kysely<EvmNonceDatabase> | Trx, key: NonceKey) {
    return db
      .deleteFrom('evm_pending')
      .where('chain', '=', key.chain)
      .where('network', '=', key.network)
      .where('address', '=', key.address);
  }
}
