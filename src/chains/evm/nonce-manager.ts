/**
 * Nonces for sends from custodial EVM addresses. Any number of concurrent sends from one address get
 * consecutive nonces, across restarts and across gateway instances sharing one Postgres:
 *
 * - allocation happens in a DB transaction holding the address's lock (nonce-store.ts) and takes
 *   max(stored next nonce, node's pending count), so spends made elsewhere are skipped over;
 * - the signed transaction is stored before it is broadcast, so a crash or a lost answer can be
 *   re-broadcast (`reconcile`) instead of leaving a gap that blocks every later nonce;
 * - a nonce no node took (the node refused the transaction) is released, or kept free and handed to the
 *   next send when later nonces are already out;
 * - "nonce too low" (a send elsewhere took it) re-syncs from the node and retries once;
 * - given a funds check, a send is judged under the lock against the address's signed sends not yet
 *   mined, so sends that together overdraw the balance are refused before signing (funds-in-flight.ts);
 * - a sent transaction the node refuses on re-broadcast is given up, and reported as dropped.
 *
 * Node calls happen outside DB transactions: the lock is held for a few statements only.
 */
import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import { ApiError } from '../../errors.ts';
import { NodeError, NodeHttpError } from '../node-client.ts';
import { EvmBroadcastUnknownError, EvmInputError, EvmNonceError } from './errors.ts';
import { isEvmAddress } from './keys.ts';
import {
  type InFlightCheck,
  type NodeNonces,
  type NonceDialect,
  type NonceKey,
  NonceStore,
  type PendingNonce,
  StaleNodeReadError,
} from './nonce-store.ts';
import { decodeTransaction, transactionHash } from './transactions.ts';

export type { InFlightCheck, NonceDialect, NonceKey, PendingNonce } from './nonce-store.ts';

/** What the manager needs from the chain; EvmAdapter has it. */
export interface NonceNode {
  readonly chain: string;
  readonly network: string;
  getTransactionCount(address: string, block: 'pending' | 'latest'): Promise<number>;
  broadcast(raw: string): Promise<Hex>;
}

export interface ManagedSend {
  nonce: number;
  hash: Hex;
  raw: Hex;
}

/**
 * Reads what the sender holds (after the nonce counts, so from the same block or a newer one) and answers
 * the check of the send against the signed transactions of its address in flight.
 */
export type FundsCheck = () => Promise<InFlightCheck>;

/** A signed, broadcast transaction the reconciler gave up: no node takes it any more. */
export interface DroppedSend {
  nonce: number;
  txHash: string;
  /** The signed transaction, as it was broadcast. */
  rawTx: string;
  /** Why, for the history and the sender: the node's refusal of the re-broadcast. */
  reason: string;
}

export interface ReconcileReport {
  /** Forgotten: the chain has mined these nonces. */
  mined: number;
  /** Sent again because the node did not have them mined yet. */
  rebroadcast: number;
  /** Given back: refused by the node, or reserved and never signed for longer than the TTL. */
  released: number;
  /** Still open: the node holds another transaction at the nonce, or could not be reached. */
  waiting: number;
  /** The sent transactions among `released`: each was broadcast once and will never be mined. */
  dropped: DroppedSend[];
}

/** Reads again after sends were settled meanwhile; each retry follows the chain, so few are needed. */
const STALE_READ_RETRIES = 10;

export interface NonceManagerOptions {
  /** A reservation with nothing signed after this long belongs to a send that died. Default 10 min. */
  reservationTtlMs?: number;
  now?: () => Date;
}

/**
 * How long after its signing a stored transaction must have its history row: a live process writes the
 * intent at once, so past this its process died before it (and a later send may take the nonce).
 */
const UNRECORDED_AFTER_MS = 30_000;

export class NonceManager {
  readonly #store: NonceStore;
  readonly #ttlMs: number;
  readonly #now: () => Date;

  /** `db` is the store's Kysely instance; the tables are those of migration 0003_evm_nonces. */
  // biome-ignore lint/suspicious/noExplicitAny: any Kysely database that has run migration 0003
  constructor(db: Kysely<any>, dialect: NonceDialect, options: NonceManagerOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#store = new NonceStore(db, dialect, this.#now);
    this.#ttlMs = options.reservationTtlMs ?? 10 * 60_000;
  }

  /**
   * Allocates a nonce, has `sign` sign the transaction with it, records it, tells `beforeBroadcast` its
   * hash and broadcasts it. On "nonce too low" or "replacement underpriced" (a send elsewhere holds the
   * nonce) it re-syncs and signs again, once. When `beforeBroadcast` throws, the nonce is released and
   * nothing is broadcast.
   *
   * @throws what `sign` throws (no nonce is taken); what `funds` refuses (nothing is signed or taken);
   *   the node's refusal (EvmNodeError family; the nonce is released); EvmBroadcastUnknownError when no
   *   answer came (the nonce stays taken and the stored transaction is re-broadcast by `reconcile`).
   */
  async send(
    key: NonceKey,
    node: NonceNode,
    sign: (nonce: number) => Promise<Hex> | Hex,
    funds?: FundsCheck,
    beforeBroadcast: (hash: Hex) => Promise<void> = async () => undefined,
  ): Promise<ManagedSend> {
    const k = this.#key(key, node);
    const signNonce = async (n: number) => {
      const signed = await sign(n);
      if ((await signedNonce(signed)) !== n) {
        throw new EvmInputError(`the signed transaction does not carry the nonce it was given (${n})`);
      }
      return { hash: transactionHash(signed), raw: signed };
    };
    for (let attempt = 0, staleReads = 0; ; ) {
      const nonces = await this.#nodeNonces(k, node);
      const check = funds === undefined ? undefined : await funds();
      let allocated: { nonce: number; hash: Hex; raw: Hex };
      try {
        // Allocated, signed and recorded at once: a failed signature leaves nothing, and a crash after it
        // leaves a transaction to broadcast again, never a nonce nobody will sign.
        allocated = await this.#store.allocateSigned(k, nonces, signNonce, check);
      } catch (error) {
        if (error instanceof StaleNodeReadError && staleReads++ < STALE_READ_RETRIES) continue;
        if (error instanceof StaleNodeReadError) {
          throw new ApiError(409, 'the balance changed while the send was checked; send it again');
        }
        throw error;
      }
      const { nonce, hash, raw } = allocated;
      try {
        await beforeBroadcast(hash);
      } catch (error) {
        await this.#store.release(k, nonce);
        throw error;
      }
      try {
        await node.broadcast(raw);
        return { nonce, hash, raw };
      } catch (error) {
        if (takenElsewhere(error)) {
          // Used or held by another transaction: never hand it out again.
          await this.#store.forget(k, nonce);
          if (attempt++ === 0) continue;
          throw error;
        }
        if (refusedByNode(error)) {
          await this.#store.release(k, nonce);
          throw error;
        }
        throw new EvmBroadcastUnknownError(hash, { cause: error });
      }
    }
  }

  /**
   * The general form: `fn` gets a nonce, signs and broadcasts itself, and returns the hash. Errors are
   * handled as in `send`, except that with no answer from the node the nonce stays reserved (nothing
   * is known to re-broadcast) until `reconcile` finds it unused after the reservation TTL.
   */
  async withNonce(key: NonceKey, node: NonceNode, fn: (nonce: number) => Promise<string>): Promise<string> {
    const k = this.#key(key, node);
    for (let attempt = 0; ; attempt++) {
      const nonce = await this.#allocate(k, node);
      let hash: string;
      try {
        hash = await fn(nonce);
      } catch (error) {
        if (takenElsewhere(error)) {
          await this.#store.forget(k, nonce);
          if (attempt === 0) continue;
          throw error;
        }
        if (!unanswered(error)) await this.#store.release(k, nonce);
        throw error;
      }
      await this.#store.markSent(k, nonce, hash, null);
      return hash;
    }
  }

  /** Nonces handed out and not yet known to be mined, lowest first. */
  pending(key: NonceKey): Promise<PendingNonce[]> {
    return this.#store.list(normalizeKey(key));
  }

  /** The next nonce the store would hand out if the node had nothing newer; null before the first send. */
  storedNextNonce(key: NonceKey): Promise<number | null> {
    return this.#store.nextNonce(normalizeKey(key));
  }

  /**
   * Settles the pending rows of one address against the node: forgets mined nonces, re-broadcasts sent
   * transactions still unmined (lowest first, so the node can take them in order), releases what the
   * node refuses and reservations older than the TTL. Run it periodically (a worker) and at start-up.
   *
   * `recorded` tells whether the send history has a row for a hash: a send records its intent after it
   * is signed and before the node gets it, so a stored transaction without one a while after its signing
   * was never handed to the node (its process died in between). It is never broadcast, which would put a
   * transaction on chain that the history does not know; its nonce is released for the next send once
   * its process can no longer be about to write the intent.
   */
  async reconcile(
    key: NonceKey,
    node: NonceNode,
    recorded?: (hash: string) => Promise<boolean>,
  ): Promise<ReconcileReport> {
    const k = this.#key(key, node);
    const report: ReconcileReport = { mined: 0, rebroadcast: 0, released: 0, waiting: 0, dropped: [] };
    const latest = await node.getTransactionCount(k.address, 'latest');
    const now = this.#now().getTime();
    const rows = await this.#store.list(k);
    report.mined = rows.filter((row) => row.nonce < latest).length;
    if (report.mined > 0) await this.#store.settle(k, latest);
    for (const row of rows) {
      if (row.nonce < latest) {
        // Mined: settled above.
      } else if (
        row.state === 'sent' &&
        row.txHash !== null &&
        recorded !== undefined &&
        !(await recorded(row.txHash))
      ) {
        // Never handed to the node (no intent in the history): not broadcast, so nothing lands that the
        // history does not know; its process may still be about to write the intent, so its nonce is
        // released only once that is past.
        if (now - Date.parse(row.createdAt) > UNRECORDED_AFTER_MS) {
          await this.#store.release(k, row.nonce);
          report.released++;
        } else {
          report.waiting++;
        }
      } else if (row.state === 'sent' && row.rawTx) {
        try {
          await node.broadcast(row.rawTx);
          report.rebroadcast++;
        } catch (error) {
          if (error instanceof EvmNonceError && error.kind === 'too_low') {
            await this.#store.forget(k, row.nonce);
            report.mined++;
          } else if (refusedByNode(error) && !(error instanceof EvmNonceError)) {
            await this.#store.release(k, row.nonce);
            report.released++;
            if (row.txHash !== null) {
              report.dropped.push({
                nonce: row.nonce,
                txHash: row.txHash,
                rawTx: row.rawTx,
                reason: droppedReason(error),
              });
            }
          } else {
            report.waiting++;
          }
        }
      } else if (row.state === 'reserved' && now - Date.parse(row.createdAt) > this.#ttlMs) {
        await this.#store.release(k, row.nonce);
        report.released++;
      } else {
        report.waiting++;
      }
    }
    return report;
  }

  async #allocate(key: NonceKey, node: NonceNode): Promise<number> {
    return this.#store.allocate(key, await this.#nodeNonces(key, node));
  }

  async #nodeNonces(key: NonceKey, node: NonceNode): Promise<NodeNonces> {
    // Read before taking the lock: the lock is never held across a node call. A stale count is safe,
    // the stored next nonce covers every nonce this gateway handed out.
    const [latest, pending] = await Promise.all([
      node.getTransactionCount(key.address, 'latest'),
      node.getTransactionCount(key.address, 'pending'),
    ]);
    return { latest, pending: Math.max(latest, pending) };
  }

  #key(key: NonceKey, node: NonceNode): NonceKey {
    if (key.chain !== node.chain || key.network !== node.network) {
      throw new Error(`nonce key ${key.chain} ${key.network} used with a ${node.chain} ${node.network} node`);
    }
    return normalizeKey(key);
  }
}

/** One-shot form of `NonceManager.withNonce`. */
export function withNonce(
  // biome-ignore lint/suspicious/noExplicitAny: any Kysely database that has run migration 0003
  db: Kysely<any>,
  dialect: NonceDialect,
  key: NonceKey,
  node: NonceNode,
  fn: (nonce: number) => Promise<string>,
): Promise<string> {
  return new NonceManager(db, dialect).withNonce(key, node, fn);
}

function normalizeKey(key: NonceKey): NonceKey {
  if (!isEvmAddress(key.address)) throw new EvmInputError(`${key.address} is not an EVM address`);
  return {
    chain: key.chain,
    network: key.network,
    address: `0x${key.address.replace(/^0x/, '').toLowerCase()}`,
  };
}

/** What the history and the sender are told of a transaction no node takes any more. */
function droppedReason(refusal: unknown): string {
  const why = refusal instanceof Error ? refusal.message : String(refusal);
  return `dropped by the node: never mined (re-broadcast refused: ${why})`;
}

/** viem leaves `nonce` out when it is 0 (RLP encodes 0 as empty). */
async function signedNonce(raw: Hex): Promise<number> {
  return (await decodeTransaction(raw)).nonce ?? 0;
}

/** The nonce is used, or held in a pool, by another transaction: a fresh nonce fixes it. */
function takenElsewhere(error: unknown): boolean {
  return error instanceof EvmNonceError && error.retryable;
}

/** The node answered and refused: it does not have the transaction. */
function refusedByNode(error: unknown): boolean {
  return (error instanceof ApiError && error.status < 500) || error instanceof NodeHttpError;
}

/** No answer, or one that does not say whether the node took the transaction. */
function unanswered(error: unknown): boolean {
  return !refusedByNode(error) && (error instanceof ApiError || error instanceof NodeError);
}
