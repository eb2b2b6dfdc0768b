/**
 * The rows behind the nonce manager (migration 0003_evm_nonces). Every change for one sending address
 * runs in a transaction that first locks that address's `evm_nonces` row: `SELECT ... FOR UPDATE` on
 * Postgres, so gateway instances sharing the database take turns; on SQLite the single connection
 * already runs one transaction at a time.
 */
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Hex } from 'viem';
import { isHex } from './hex.ts';

export type NonceDialect = 'sqlite' | 'postgres';

export interface EvmNoncesTable {
  chain: string;
  network: string;
  address: string;
  next_nonce: number;
  /** The highest count of mined nonces (eth_getTransactionCount latest) acted on: rows below are gone. */
  mined_nonce: number;
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

/** The family's own two tables (migrations/), which its store code reads through `db.withTables`. */
export type EvmNonceDatabase = {
  evm_nonces: EvmNoncesTable;
  evm_pending: EvmPendingTable;
};

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

/** Keeps a query to the rows of one address: both tables are keyed by chain, network and address. */
function ofAddress({ chain, network, address }: NonceKey) {
  return (eb: ExpressionBuilder<EvmNonceDatabase, 'evm_nonces' | 'evm_pending'>) =>
    eb.and([eb('chain', '=', chain), eb('network', '=', network), eb('address', '=', address)]);
}

/** The address's row, read under its lock. */
interface Locked {
  nextNonce: number;
  minedNonce: number;
}

/**
 * Judges a send against the signed transactions of its address still in flight (raw, lowest nonce
 * first); throws to refuse it. Runs under the address's lock: it must not call a node.
 */
export type InFlightCheck = (inFlight: readonly Hex[]) => void;

/**
 * The node counts a send was judged with are older than what another send or pass already acted on:
 * sends mined since were forgotten, and its balance may not show them spent. Read again and retry.
 */
export class StaleNodeReadError extends Error {
  constructor() {
    super('node read older than the nonces already settled');
    this.name = 'StaleNodeReadError';
  }
}

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
    return this.#locked(key, (trx, row, now) => this.#reserve(trx, key, node, row, now));
  }

  /**
   * Allocates a nonce and records the transaction `sign` makes with it, in one transaction: the row is
   * `sent` with its raw transaction (which `reconcile` can broadcast again) or not there at all. A process
   * that dies in between leaves no reserved nonce behind, which would hold every later send from the
   * address in the node's queue. `sign` runs under the address's lock: it must not call a node.
   *
   * `check`, when given, first judges the send against the address's signed transactions not mined at
   * `node.latest`, under the same lock, so concurrent sends (in this process or another instance) see
   * each other; a refusal leaves nothing reserved.
   *
   * @throws what `check` throws; StaleNodeReadError when `node` predates sends already forgotten as mined
   *   and there are sends in flight to count (read again).
   */
  allocateSigned<Signed extends { hash: string; raw: string }>(
    key: NonceKey,
    node: NodeNonces,
    sign: (nonce: number) => Promise<Signed>,
    check?: InFlightCheck,
  ): Promise<Signed & { nonce: number }> {
    return this.#locked(key, async (trx, row, now) => {
      if (check !== undefined) {
        const inFlight = await this.#signedFrom(trx, key, node.latest);
        check(inFlight);
        // Stale counts only matter for a send let through beside others: without any, the node judges it alone.
        if (inFlight.length > 0 && node.latest < row.minedNonce) throw new StaleNodeReadError();
      }
      const nonce = await this.#reserve(trx, key, node, row, now);
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

  /** The raw transactions of the address's sent rows from `fromNonce` up, lowest first. */
  async #signedFrom(trx: Trx, key: NonceKey, fromNonce: number): Promise<Hex[]> {
    const rows = await this.#pending(trx, key)
      .select('raw_tx')
      .where('state', '=', 'sent')
      .where('nonce', '>=', fromNonce)
      .where('raw_tx', 'is not', null)
      .orderBy('nonce')
      .execute();
    return rows.flatMap((r) => (r.raw_tx !== null && isHex(r.raw_tx) ? [r.raw_tx] : []));
  }

  async #reserve(trx: Trx, key: NonceKey, node: NodeNonces, row: Locked, now: string): Promise<number> {
    await this.#forgetMined(trx, key, node.latest, row);
    // A freed nonce below the node's pending count has been filled by a send elsewhere.
    await this.#deletePending(trx, key)
      .where('state', '=', 'free')
      .where('nonce', '<', node.pending)
      .execute();
    const free = await this.#pending(trx, key)
      .select('nonce')
      .where('state', '=', 'free')
      .orderBy('nonce')
      .limit(1)
      .executeTakeFirst();
    if (free) {
      await this.#update(trx, key, free.nonce, { state: 'reserved', created_at: now, updated_at: now });
      return Number(free.nonce);
    }
    const nonce = Math.max(row.nextNonce, node.pending);
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
    await this.#update(this.#db, key, nonce, {
      state: 'sent',
      tx_hash: txHash,
      raw_tx: rawTx,
      updated_at: this.#now().toISOString(),
    });
  }

  /**
   * Gives back a nonce no node took: the next nonce moves down when it was the last one handed out
   * (with any freed ones right below it), otherwise it is kept free for the next send to fill the gap.
   */
  release(key: NonceKey, nonce: number): Promise<void> {
    return this.#locked(key, async (trx, { nextNonce }, now) => {
      if (nonce !== nextNonce - 1) {
        await this.#update(trx, key, nonce, { state: 'free', tx_hash: null, raw_tx: null, updated_at: now });
        return;
      }
      await this.#deletePending(trx, key).where('nonce', '=', nonce).execute();
      const freed = await this.#pending(trx, key)
        .select('nonce')
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

  /** Forgets every nonce below `latest`, the node's count of mined ones: the chain has settled them. */
  settle(key: NonceKey, latest: number): Promise<void> {
    return this.#locked(key, (trx, row) => this.#forgetMined(trx, key, latest, row));
  }

  /** Rows below the mined count go, and the count is kept: a send judged on older counts reads again. */
  async #forgetMined(trx: Trx, key: NonceKey, latest: number, row: Locked): Promise<void> {
    await this.#deletePending(trx, key).where('nonce', '<', latest).execute();
    if (latest <= row.minedNonce) return;
    await trx.updateTable('evm_nonces').set({ mined_nonce: latest }).where(ofAddress(key)).execute();
  }

  /** Forgets a nonce the chain has used for another transaction (a send from elsewhere took it). */
  async forget(key: NonceKey, nonce: number): Promise<void> {
    await this.#deletePending(this.#db, key).where('nonce', '=', nonce).execute();
  }

  async list(key: NonceKey): Promise<PendingNonce[]> {
    const rows = await this.#pending(this.#db, key)
      .select(['nonce', 'state', 'tx_hash', 'raw_tx', 'created_at'])
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
      .where(ofAddress(key))
      .executeTakeFirst();
    return row ? Number(row.next_nonce) : null;
  }

  /** Runs `work` holding the address's lock; creates the address's row on first use. */
  #locked<T>(key: NonceKey, work: (trx: Trx, row: Locked, now: string) => Promise<T>): Promise<T> {
    return this.#db.transaction().execute(async (trx) => {
      const now = this.#now().toISOString();
      await trx
        .insertInto('evm_nonces')
        .values({ ...key, next_nonce: 0, mined_nonce: 0, updated_at: now })
        .onConflict((oc) => oc.columns(['chain', 'network', 'address']).doNothing())
        .execute();
      let query = trx.selectFrom('evm_nonces').select(['next_nonce', 'mined_nonce']).where(ofAddress(key));
      if (this.#dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirstOrThrow();
      return work(trx, { nextNonce: Number(row.next_nonce), minedNonce: Number(row.mined_nonce) }, now);
    });
  }

  #setNext(trx: Trx, key: NonceKey, next: number, now: string) {
    return trx
      .updateTable('evm_nonces')
      .set({ next_nonce: next, updated_at: now })
      .where(ofAddress(key))
      .execute();
  }

  #update(
    db: Kysely<EvmNonceDatabase> | Trx,
    key: NonceKey,
    nonce: number,
    values: Partial<EvmPendingTable>,
  ) {
    return db
      .updateTable('evm_pending')
      .set(values)
      .where(ofAddress(key))
      .where('nonce', '=', nonce)
      .execute();
  }

  /** The address's rows, to select from. */
  #pending(db: Kysely<EvmNonceDatabase> | Trx, key: NonceKey) {
    return db.selectFrom('evm_pending').where(ofAddress(key));
  }

  #deletePending(db: Kysely<EvmNonceDatabase> | Trx, key: NonceKey) {
    return db.deleteFrom('evm_pending').where(ofAddress(key));
  }
}
