/**
 * The coins Bitcoin sends hold (migration 0014_bitcoin_coin_reservations). A send chooses its coins among
 * those no other send holds and reserves them in the same database transaction; the table's primary key
 * (network, txid, vout) is what two sends, of one gateway or of several sharing a Postgres, cannot both
 * pass: the second one's insert does nothing, its transaction is rolled back and it chooses again. On
 * Postgres, sends choosing among the same addresses' coins also take turns (an advisory lock per
 * address), so racers wait for each other's reservation instead of choosing the same coin and losing
 * it round after round; SQLite's write transactions already take turns.
 *
 * A reservation lasts PENDING_LEASE_MS while the send signs, renewed just before the broadcast; once the
 * node took the transaction it lasts BROADCAST_LEASE_MS: long after the node's view of the address
 * (Esplora's index, Core's mempool scan, an endpoint lagging behind another) shows the coin spent, so no
 * send offers it again meanwhile, and short enough that a transaction the network dropped does not hold
 * its coins for long. A send refused before or by the node gives its coins back at once; one cut short
 * by a crash holds them until its lease ends.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { ApiError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { Store } from '../../store/store.ts';

/** How long a send may hold its coins between choosing them and broadcasting. */
export const PENDING_LEASE_MS = 2 * 60_000;
/** How long coins stay held once their transaction is broadcast. */
export const BROADCAST_LEASE_MS = 60 * 60_000;
/** Rounds of choosing again after another send took a chosen coin first (Postgres only). */
const RESERVE_ATTEMPTS = 5;
/** Transaction ids per query when reading which listed coins are held (well below SQLite's 32766 variables). */
const TXIDS_PER_READ = 500;

export interface BitcoinCoinReservationsTable {
  network: string;
  txid: string;
  vout: number;
  address: string;
  holder: string;
  spending_txid: string | null;
  reserved_at: string;
  expires_at: string;
}

/** The family's own table (migrations/), which its store code reads through `db.withTables`. */
export type BitcoinCoinReservationDatabase = {
  bitcoin_coin_reservations: BitcoinCoinReservationsTable;
};

/** A coin as the reservations know it. */
export interface CoinRef {
  txid: string;
  vout: number;
  address: string;
}

type Db = Kysely<Database & BitcoinCoinReservationDatabase>;
type Trx = Transaction<Database & BitcoinCoinReservationDatabase>;

/** Another send reserved one of the chosen coins between the read and the insert. */
class CoinTakenError extends Error {}

const keyOf = (coin: { txid: string; vout: number }) => `${coin.txid}:${coin.vout}`;
const byOutpoint = (a: CoinRef, b: CoinRef) =>
  a.txid === b.txid ? a.vout - b.vout : a.txid < b.txid ? -1 : 1;

/** Postgres aborted the transaction to break a deadlock, or for a conflict it could not order. */
const retryablePostgres = (error: unknown) =>
  error instanceof Error && 'code' in error && (error.code === '40P01' || error.code === '40001');

export class CoinReservations {
  readonly #db: Db;
  readonly #dialect: Store['dialect'];
  readonly #now: () => Date;

  constructor(store: Pick<Store, 'db' | 'dialect'>, now: () => Date = () => new Date()) {
    this.#db = store.db.withTables<BitcoinCoinReservationDatabase>();
    this.#dialect = store.dialect;
    this.#now = now;
  }

  /** The coins of `listed` no send holds now (for a build, which reserves nothing). */
  free<C extends CoinRef>(network: string, listed: readonly C[]): Promise<C[]> {
    return this.#db.transaction().execute((trx) => this.#free(trx, network, listed));
  }

  /**
   * Of `txids`, those a send of this gateway broadcast, each with the addresses of the coins it spent
   * (as long as its reservation lasts: BROADCAST_LEASE_MS after the broadcast).
   */
  async spentBy(network: string, txids: readonly string[]): Promise<Map<string, string[]>> {
    const spent = new Map<string, string[]>();
    const unique = [...new Set(txids)];
    for (let i = 0; i < unique.length; i += TXIDS_PER_READ) {
      const rows = await this.#db
        .selectFrom('bitcoin_coin_reservations')
        .select(['spending_txid', 'address'])
        .where('network', '=', network)
        .where('spending_txid', 'in', unique.slice(i, i + TXIDS_PER_READ))
        .where('expires_at', '>', this.#now().toISOString())
        .execute();
      for (const { spending_txid: txid, address } of rows) {
        if (txid !== null) spent.set(txid, [...(spent.get(txid) ?? []), address]);
      }
    }
    return spent;
  }

  /**
   * Lets `choose` pick among the coins of `listed` that no other send holds, and reserves what it picked,
   * atomically. Whatever `choose` throws (too little) reserves nothing.
   */
  async reserve<C extends CoinRef, Chosen extends { inputs: readonly C[] }>(
    network: string,
    listed: readonly C[],
    choose: (free: C[]) => Chosen | Promise<Chosen>,
  ): Promise<{ chosen: Chosen; hold: CoinHold }> {
    const holder = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        const chosen = await this.#db.transaction().execute(async (trx) => {
          await this.#takeTurn(trx, network, listed);
          const picked = await choose(await this.#free(trx, network, listed));
          await this.#insert(trx, network, holder, picked.inputs);
          return picked;
        });
        return { chosen, hold: new CoinHold(this.#db, this.#now, network, holder, chosen.inputs) };
      } catch (error) {
        if (!(error instanceof CoinTakenError) && !retryablePostgres(error)) throw error;
        if (attempt === RESERVE_ATTEMPTS)
          throw new ApiError(503, 'Other sends from these addresses are choosing coins now; try again');
      }
    }
  }

  /**
   * Postgres: waits until no other send is choosing among these addresses' coins (locks taken in one
   * order, so two sends never deadlock; released when the transaction ends).
   */
  async #takeTurn(trx: Trx, network: string, listed: readonly CoinRef[]): Promise<void> {
    if (this.#dialect !== 'postgres') return;
    for (const address of [...new Set(listed.map((coin) => coin.address))].sort()) {
      const key = `bitcoin-coins:${network}:${address}`;
      await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    }
  }

  async #free<C extends CoinRef>(trx: Trx, network: string, listed: readonly C[]): Promise<C[]> {
    await trx
      .deleteFrom('bitcoin_coin_reservations')
      .where('network', '=', network)
      .where('expires_at', '<=', this.#now().toISOString())
      .execute();
    const held = new Set<string>();
    // By outpoint (the primary key), whatever form the address was written in.
    const txids = [...new Set(listed.map((coin) => coin.txid))];
    for (let i = 0; i < txids.length; i += TXIDS_PER_READ) {
      const rows = await trx
        .selectFrom('bitcoin_coin_reservations')
        .select(['txid', 'vout'])
        .where('network', '=', network)
        .where('txid', 'in', txids.slice(i, i + TXIDS_PER_READ))
        .execute();
      for (const row of rows) held.add(keyOf(row));
    }
    return listed.filter((coin) => !held.has(keyOf(coin)));
  }

  async #insert(trx: Trx, network: string, holder: string, coins: readonly CoinRef[]): Promise<void> {
    if (coins.length === 0) return;
    const now = this.#now();
    const inserted = await trx
      .insertInto('bitcoin_coin_reservations')
      .values(
        // In one order for every send, so that two inserting the same coins wait on each other, never deadlock.
        [...coins].sort(byOutpoint).map((coin) => ({
          network,
          txid: coin.txid,
          vout: coin.vout,
          address: coin.address,
          holder,
          spending_txid: null,
          reserved_at: now.toISOString(),
          expires_at: new Date(now.getTime() + PENDING_LEASE_MS).toISOString(),
        })),
      )
      // Postgres: a concurrent insert of the same coin waits for the other transaction, then does nothing.
      .onConflict((oc) => oc.columns(['network', 'txid', 'vout']).doNothing())
      .returning('txid')
      .execute();
    if (inserted.length < coins.length) throw new CoinTakenError();
  }
}

/** The coins one send holds, from its choice to its broadcast. */
export class CoinHold {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly network: string,
    readonly holder: string,
    private readonly coins: readonly CoinRef[],
  ) {}

  /**
   * Renews the hold for the broadcast (PENDING_LEASE_MS again: a broadcast whose answer is lost leaves the
   * coins held that long, by when the node's view shows them spent if it took the transaction). False
   * when a coin is no longer this send's: its lease ended and another send took it, and a broadcast would
   * compete with that send's transaction.
   */
  async forBroadcast(): Promise<boolean> {
    if (this.coins.length === 0) return true;
    const now = this.now();
    const expires = new Date(now.getTime() + PENDING_LEASE_MS).toISOString();
    const kept = await this.db
      .insertInto('bitcoin_coin_reservations')
      .values(
        [...this.coins].sort(byOutpoint).map((coin) => ({
          network: this.network,
          txid: coin.txid,
          vout: coin.vout,
          address: coin.address,
          holder: this.holder,
          spending_txid: null,
          reserved_at: now.toISOString(),
          expires_at: expires,
        })),
      )
      // A row forgotten on the way (its lease ended, nobody took the coin) is written again.
      .onConflict((oc) =>
        oc
          .columns(['network', 'txid', 'vout'])
          .doUpdateSet({ expires_at: expires })
          .where('bitcoin_coin_reservations.holder', '=', this.holder),
      )
      .returning('txid')
      .execute();
    return kept.length === this.coins.length;
  }

  /** The node took `txid`, which spends the coins: they stay held for BROADCAST_LEASE_MS. */
  async broadcast(txid: string): Promise<void> {
    await this.db
      .updateTable('bitcoin_coin_reservations')
      .set({
        spending_txid: txid,
        expires_at: new Date(this.now().getTime() + BROADCAST_LEASE_MS).toISOString(),
      })
      .where('holder', '=', this.holder)
      .execute();
  }

  /** Gives the coins back: the send was refused or given up before any node took its transaction. */
  async release(): Promise<void> {
    await this.db.deleteFrom('bitcoin_coin_reservations').where('holder', '=', this.holder).execute();
  }
}
