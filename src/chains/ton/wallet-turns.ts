/**
 * Turns to send from a TON wallet (migration 0020_ton_wallet_turns). A wallet takes one external message
 * per seqno, in order, and refuses any other, so its messages go one at a time, each from reading the
 * wallet to its landing: a custodial send, the sponsor's message carrying others' transfers, a sponsored
 * request an owner's wallet runs. They take turns across every gateway instance sharing the database:
 * within a process they wait for each other here, and the process then waits for the wallet's row to be
 * free. A turn is a lease renewed while its send runs; a process that died holding one frees it when
 * the lease ends, and a message it left may still land then: the next send's message on the same seqno
 * is refused or lost, and signed again.
 *
 * The row also keeps the newest seqno the wallet was seen to take, since the node's index may lag behind
 * a landing: a message's seqno is max(the chain's, that + 1).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { Store } from '../../store/store.ts';
import { OneAtATime } from '../one-at-a-time.ts';
import type { Network } from '../types.ts';

/** How long a turn lasts unless renewed; it is renewed every third of it. */
export const TURN_LEASE_MS = 30_000;
/** Pause between two looks at a wallet another instance's send holds. */
const TURN_POLL_MS = 200;
/** How long a send waits for another instance's sends from the wallet before it answers 503. */
const TURN_WAIT_MS = 5 * 60_000;

export interface TonWalletTurnsTable {
  network: string;
  /** Raw (`0:<hex>`). */
  wallet: string;
  holder: string | null;
  expires_at: string | null;
  taken_seqno: number;
}

/** The family's own table (migrations/), which its store code reads through `db.withTables`. */
export type TonWalletTurnDatabase = {
  ton_wallet_turns: TonWalletTurnsTable;
};

/** A send's turn at a wallet. */
export interface WalletTurn {
  /** The newest seqno the wallet was seen to take; -1 while none. */
  readonly taken: number;
  /** Notes that the wallet took a message on `seqno`. */
  took(seqno: number): Promise<void>;
}

export interface WalletTurnOptions {
  leaseMs?: number;
  pollMs?: number;
  waitMs?: number;
  now?: () => number;
}

export class WalletTurns {
  readonly #db: Kysely<Database & TonWalletTurnDatabase>;
  /** Each wallet's turns in this process, in the order asked. */
  readonly #queues = new OneAtATime();
  readonly #options: Required<WalletTurnOptions>;

  constructor(store: Pick<Store, 'db'>, options: WalletTurnOptions = {}) {
    this.#db = store.db.withTables<TonWalletTurnDatabase>();
    this.#options = {
      leaseMs: TURN_LEASE_MS,
      pollMs: TURN_POLL_MS,
      waitMs: TURN_WAIT_MS,
      now: Date.now,
      ...options,
    };
  }

  /** Runs `work` in a turn at `wallet` (raw): once every other send from it, of any instance, has ended. */
  take<T>(network: Network, wallet: string, work: (turn: WalletTurn) => Promise<T>): Promise<T> {
    return this.#queues.run(`${network}:${wallet}`, async () => {
      const holder = randomUUID();
      let taken = await this.#acquire(network, wallet, holder);
      const renewal = setInterval(() => {
        this.#renew(network, wallet, holder).catch(() => {});
      }, this.#options.leaseMs / 3);
      try {
        return await work({
          get taken() {
            return taken;
          },
          took: async (seqno) => {
            if (seqno <= taken) return;
            taken = seqno;
            await this.#rows(network, wallet)
              .set({ taken_seqno: seqno })
              .where('taken_seqno', '<', seqno)
              .execute();
          },
        });
      } finally {
        clearInterval(renewal);
        // Not freed (the database is down): the lease ends on its own.
        await this.#rows(network, wallet)
          .set({ holder: null, expires_at: null })
          .where('holder', '=', holder)
          .execute()
          .catch(() => {});
      }
    });
  }

  /** The newest seqno `wallet` was seen to take (-1: none), read outside any turn: for estimates. */
  async taken(network: Network, wallet: string): Promise<number> {
    const row = await this.#db
      .selectFrom('ton_wallet_turns')
      .select('taken_seqno')
      .where('network', '=', network)
      .where('wallet', '=', wallet)
      .executeTakeFirst();
    return row?.taken_seqno ?? -1;
  }

  /** Holds the wallet's row for `holder` once it is free or its lease has ended; answers its taken seqno. */
  async #acquire(network: Network, wallet: string, holder: string): Promise<number> {
    await this.#db
      .insertInto('ton_wallet_turns')
      .values({ network, wallet, holder: null, expires_at: null, taken_seqno: -1 })
      .onConflict((oc) => oc.columns(['network', 'wallet']).doNothing())
      .execute();
    const { leaseMs, pollMs, waitMs, now } = this.#options;
    const deadline = now() + waitMs;
    for (;;) {
      const at = now();
      const held = await this.#rows(network, wallet)
        .set({ holder, expires_at: new Date(at + leaseMs).toISOString() })
        .where((eb) => eb.or([eb('holder', 'is', null), eb('expires_at', '<=', new Date(at).toISOString())]))
        .returning('taken_seqno')
        .executeTakeFirst();
      if (held !== undefined) return held.taken_seqno;
      if (at > deadline) {
        throw new ApiError(
          503,
          'Other sends from this wallet have been running for minutes; try again later',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  #renew(network: Network, wallet: string, holder: string) {
    return this.#rows(network, wallet)
      .set({ expires_at: new Date(this.#options.now() + this.#options.leaseMs).toISOString() })
      .where('holder', '=', holder)
      .execute();
  }

  #rows(network: Network, wallet: string) {
    return this.#db
      .updateTable('ton_wallet_turns')
      .where('network', '=', network)
      .where('wallet', '=', wallet);
  }
}
