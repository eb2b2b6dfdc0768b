/**
 * A sponsored TON transfer's message taken to the chain, and what it cost the sponsor read back. The
 * sponsor's signed external message is noted in the job's journal before the node gets it, so a run that
 * dies at any point resumes with the same message: the sponsor's wallet takes a seqno once, so the same
 * message can never be paid twice. One that is in no transaction once the chain's time has passed its
 * `valid_until` never will be, and the job signs another.
 *
 * A transfer runs as a trace of transactions (the sponsor's wallet, the owner's wallet, the jetton
 * wallets, the excess coming back); each inbound message is found by its hash. What the sponsor lost is
 * summed over its own transactions in that trace: what each charged (`total_fees`), what it sent (every
 * message's value and its forwarding fee) less what came in (the excess, or a bounce).
 */
import { type SponsorJournal, SponsorshipRefused } from '../fee-sponsor.ts';
import type { TonAdapter } from './adapter.ts';
import { comparableAddress, hexHash } from './block-transfers.ts';
import { type TonMessage, TonMessageRefused, type TonTransaction } from './toncenter.ts';

/** The journal's names for the sponsor's message signed and about to be sent. */
const NOTED = {
  hash: 'ton_message_hash',
  boc: 'ton_message_boc',
  validUntil: 'ton_message_valid_until',
  index: 'ton_message_index',
  size: 'ton_message_size',
} as const;

/** The sponsor's signed external message, as the journal keeps it. */
export interface NotedMessage {
  /** Normalized hash, hex: what the node finds its transaction by. */
  hash: string;
  boc: string;
  /** Unix seconds: the sponsor's wallet refuses it after this. */
  validUntil: number;
  /** The job's place among the transfers the message carries, and how many it carries (its fee is shared). */
  index: number;
  size: number;
}

/** How a run waits for its message and its trace. */
export interface LandingWait {
  /** Between two looks, ms. */
  pollMs: number;
  /** How long a trace may take to end once its first transaction landed, ms. */
  traceMs: number;
}

export const DEFAULT_LANDING_WAIT: LandingWait = { pollMs: 1_000, traceMs: 120_000 };

/** The transactions of a trace more than this many messages from its start are not followed. */
const MAX_TRACE_DEPTH = 12;

export async function noteMessage(journal: SponsorJournal, noted: NotedMessage): Promise<void> {
  await journal.note({
    [NOTED.hash]: noted.hash,
    [NOTED.boc]: noted.boc,
    [NOTED.validUntil]: noted.validUntil.toString(),
    [NOTED.index]: noted.index.toString(),
    [NOTED.size]: noted.size.toString(),
  });
}

/** The message an earlier run signed, from the journal; null when none did. */
export function notedMessage(notes: Readonly<Record<string, string>>): NotedMessage | null {
  const hash = notes[NOTED.hash];
  const boc = notes[NOTED.boc];
  const [validUntil, index, size] = [NOTED.validUntil, NOTED.index, NOTED.size].map((name) => notes[name]);
  const whole = (text: string | undefined): text is string =>
    text !== undefined && /^[0-9]{1,12}$/.test(text);
  if (hash === undefined || boc === undefined || !whole(validUntil) || !whole(index) || !whole(size))
    return null;
  return { hash, boc, validUntil: Number(validUntil), index: Number(index), size: Number(size) };
}

/**
 * Sends the noted message (unless it landed already) and waits for its transaction: the transaction, or
 * `expired` once the chain's time is past its `valid_until` and it is in none. A node that refuses it is
 * not believed at once (a message re-sent after it landed is refused as stale): only its expiry ends it.
 */
export async function land(
  adapter: TonAdapter,
  noted: NotedMessage,
  wait: LandingWait,
): Promise<TonTransaction | 'expired'> {
  let refusal: TonMessageRefused | null = null;
  for (let look = 0; ; look++) {
    // The chain's time is read before the lookup: a landing up to that time is then found.
    const chainTime = (await adapter.toncenter.masterchainInfo()).last.genUtime;
    const [landed] = await adapter.toncenter.transactionsByMessage(noted.hash, 'in');
    if (landed !== undefined) return landed;
    if (chainTime > noted.validUntil) {
      if (refusal !== null)
        throw new SponsorshipRefused(`the node refused the sponsor's message: ${refusal.message}`);
      return 'expired';
    }
    if (look === 0) refusal = await send(adapter, noted);
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
  }
}

async function send(adapter: TonAdapter, noted: NotedMessage): Promise<TonMessageRefused | null> {
  try {
    await adapter.toncenter.sendMessage(noted.boc);
    return null;
  } catch (error) {
    if (error instanceof TonMessageRefused) return error;
    throw error;
  }
}

/** A landed trace: its transactions in the order they were found (the sponsor's first). */
export interface Trace {
  transactions: TonTransaction[];
}

/**
 * Every transaction that followed from `root`: each internal message it sent leads to the transaction
 * that received it. Waits while one of them is not indexed yet.
 */
export async function traceOf(adapter: TonAdapter, root: TonTransaction, wait: LandingWait): Promise<Trace> {
  return traceFrom(adapter, root, sent(root, 1), wait);
}

/** `root` and the transactions that followed from those of its `messages` that are followed. */
export async function traceFrom(
  adapter: TonAdapter,
  root: TonTransaction,
  messages: { message: TonMessage; depth: number }[],
  wait: LandingWait,
): Promise<Trace> {
  const transactions = [root];
  let pending = messages;
  const until = Date.now() + wait.traceMs;
  while (pending.length > 0) {
    const next: typeof pending = [];
    let found = false;
    for (const { message, depth } of pending) {
      const [received] = await adapter.toncenter.transactionsByMessage(message.hash, 'in');
      if (received === undefined) next.push({ message, depth });
      else {
        found = true;
        transactions.push(received);
        if (depth < MAX_TRACE_DEPTH) next.push(...sent(received, depth + 1));
      }
    }
    pending = next;
    if (pending.length === 0 || found) continue;
    if (Date.now() > until)
      throw new Error(`the trace of transaction ${hexHash(root.hash)} has not ended yet`);
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
  }
  return { transactions };
}

/** The internal messages a transaction sent (external-out messages, logs, have no receiver). */
export function sent(tx: TonTransaction, depth: number): { message: TonMessage; depth: number }[] {
  return tx.outMsgs.filter((message) => message.destination !== null).map((message) => ({ message, depth }));
}

/**
 * What the trace took from `account`'s balance, in nanotons: each of its transactions' fees, plus the
 * value and forwarding fee of every message it sent, less the value of the internal messages it received.
 */
export function balanceLoss(trace: Trace, account: string): bigint {
  const own = comparableAddress(account);
  let loss = 0n;
  for (const tx of trace.transactions) {
    if (comparableAddress(tx.account) !== own) continue;
    loss += tx.totalFees;
    for (const message of tx.outMsgs) loss += (message.value ?? 0n) + (message.fwdFee ?? 0n);
    loss -= tx.inMsg?.value ?? 0n;
  }
  return loss;
}

/** The transaction of the trace that `account` ran on the message `from` sent it; null when there is none. */
export function receivedFrom(trace: Trace, from: string, account: string): TonTransaction | null {
  const sender = comparableAddress(from);
  const receiver = comparableAddress(account);
  return (
    trace.transactions.find(
      (tx) =>
        comparableAddress(tx.account) === receiver && comparableAddress(tx.inMsg?.source ?? null) === sender,
    ) ?? null
  );
}

/** What one job's transfer cost the sponsor, out of a message that may have carried others' too. */
export interface CarriedCost {
  /** Its share of the message's own fee, the forwarding of its carrier, and the fees of the excess's arrival. */
  fees: bigint;
  /** What its carrier brought to the owner's wallet less what came back (the excess, or a bounce). */
  attached: bigint;
}

/**
 * The cost of the transfer `carrier` took to its owner, `index` of the `size` the sponsor's transaction
 * `root` sent: the transaction's fees are shared evenly, the first transfer taking what does not divide,
 * so the shares add up to the fees exactly.
 */
export function carriedCost(
  root: TonTransaction,
  carrier: TonMessage | null,
  trace: Trace,
  sponsor: string,
  index: number,
  size: number,
): CarriedCost {
  const count = BigInt(Math.max(size, 1));
  const share = root.totalFees / count + (index === 0 ? root.totalFees % count : 0n);
  let fees = share + (carrier?.fwdFee ?? 0n);
  let attached = carrier?.value ?? 0n;
  const own = comparableAddress(sponsor);
  for (const tx of trace.transactions) {
    if (tx === root || comparableAddress(tx.account) !== own) continue;
    fees += tx.totalFees;
    for (const message of tx.outMsgs) {
      fees += message.fwdFee ?? 0n;
      attached += message.value ?? 0n;
    }
    attached -= tx.inMsg?.value ?? 0n;
  }
  return { fees, attached };
}
