/**
 * The id the gateway gives a TON payment: the normalized hash (TEP-467) of the external message its trace
 * began with, which is what a send answers (message-hash.ts). On TON a payment is a trace: the external
 * message into the sender's wallet, that wallet's transaction, the internal message it sent, the
 * receiver's transaction (a jetton's takes a few more hops). The transaction that received the value is
 * not the one the sender knows; the external message is.
 *
 * The indexer names each transaction's trace by the hash of its first transaction (`trace_id`), whose
 * inbound message is that external message. A trace that began otherwise (a tick-tock), or whose first
 * transaction the indexer does not have, has no such id: its transactions go by their own hashes.
 */
import { hexHash } from './block-transfers.ts';
import { cellOf } from './message-bodies.ts';
import { normalizedHash } from './message-hash.ts';
import { tonCore } from './ton-core.ts';
import type { Toncenter, TonTransaction } from './toncenter.ts';

/** How many traces' ids are remembered: each is a transaction read the follower need not make again. */
const REMEMBERED_TRACES = 10_000;

/** A trace that began without an external message: its transactions go by their own hashes. */
const NO_EXTERNAL_MESSAGE = 'no external message';

export class TraceIds {
  /** The first transaction's hash (hex) -> its trace's id (hex). */
  readonly #ids = new Map<string, string>();

  constructor(private readonly toncenter: Pick<Toncenter, 'transactionByHash'>) {}

  /**
   * The id (64 lower-case hex) of the trace `tx` belongs to. `nearby` are transactions already read, by
   * hash (hex): a trace's first transaction is usually in the same block as the others.
   */
  async of(tx: TonTransaction, nearby: ReadonlyMap<string, TonTransaction> = new Map()): Promise<string> {
    const own = hexHash(tx.hash);
    if (tx.traceId === null) return own;
    const first = hexHash(tx.traceId);
    let id = this.#ids.get(first);
    if (id === undefined) {
      const root =
        first === own ? tx : (nearby.get(first) ?? (await this.toncenter.transactionByHash(first)));
      // A first transaction the indexer does not have (yet) is not remembered: a later read may find it.
      if (root === null) return own;
      id = (await externalMessageId(root)) ?? NO_EXTERNAL_MESSAGE;
      this.#remember(first, id);
    }
    return id === NO_EXTERNAL_MESSAGE ? own : id;
  }

  #remember(first: string, id: string): void {
    this.#ids.set(first, id);
    if (this.#ids.size > REMEMBERED_TRACES) {
      const oldest = this.#ids.keys().next();
      if (!oldest.done) this.#ids.delete(oldest.value);
    }
  }
}

/**
 * The normalized hash (hex) of the external message a transaction received; null when its inbound
 * message is internal (it has a source) or missing. The indexer's `hash_norm` where it gives one, else
 * computed from the destination and the body.
 */
async function externalMessageId(tx: TonTransaction): Promise<string | null> {
  const message = tx.inMsg;
  if (message === null || message.source !== null) return null;
  if (message.hashNorm !== null) return hexHash(message.hashNorm);
  if (message.body === null) return null;
  const core = await tonCore();
  const body = cellOf(core, message.body);
  if (body === null) return null;
  return normalizedHash(core.beginCell(), core.Address.parseRaw(message.destination ?? tx.account), body);
}
