/**
 * A signed sponsored transaction taken to the chain and its cost read back. It is noted in the job's
 * journal before the node gets it, so a run that dies at any point resumes with the same bytes: the same
 * signature, which the network runs at most once. Sent again while its blockhash is valid; once that
 * has expired and the node does not know it, it can never land, and the job builds another.
 */
import type { Base64EncodedWireTransaction } from '@solana/kit';
import { type SponsorJournal, SponsorshipRefused } from '../fee-sponsor.ts';
import type { SolanaAdapter } from './adapter.ts';
import { SolanaSendRefused } from './errors.ts';

/** The journal's names for the transaction signed and about to be sent. */
const NOTED = {
  signature: 'solana_signature',
  wire: 'solana_transaction',
  lastValidBlockHeight: 'solana_last_valid_block_height',
} as const;

/** A signed transaction, as the journal keeps it. */
export interface NotedTransaction {
  signature: string;
  /** The signed wire transaction, base64. */
  wire: Base64EncodedWireTransaction;
  /** Past this block height its blockhash is too old: it never lands. */
  lastValidBlockHeight: bigint;
}

/** How long between two looks at a sent transaction's status. */
const POLL_MS = 400;
/** Sent again every this many looks while it is in no block (a node may drop what it was given). */
const RESEND_EVERY = 5;
/** Reading a confirmed transaction may lag its status on a node behind the one that answered it. */
const READ_ATTEMPTS = 10;
/**
 * How long a run waits for its transaction; past it (a node that stopped making blocks) the run ends with
 * an error and the job resumes it later from the journal. A blockhash lives about 90 seconds.
 */
const WAIT_MS = 3 * 60_000;

export async function noteTransaction(journal: SponsorJournal, noted: NotedTransaction): Promise<void> {
  await journal.note({
    [NOTED.signature]: noted.signature,
    [NOTED.wire]: noted.wire,
    [NOTED.lastValidBlockHeight]: noted.lastValidBlockHeight.toString(),
  });
}

/** The transaction an earlier run signed, from the journal; null when none did. */
export function notedTransaction(notes: Readonly<Record<string, string>>): NotedTransaction | null {
  const signature = notes[NOTED.signature];
  const wire = notes[NOTED.wire];
  const height = notes[NOTED.lastValidBlockHeight];
  if (signature === undefined || wire === undefined || height === undefined || !/^[0-9]+$/.test(height))
    return null;
  return { signature, wire: wire as Base64EncodedWireTransaction, lastValidBlockHeight: BigInt(height) };
}

/**
 * Sends the transaction (unless the node has it already) and waits until it is confirmed, succeeded or
 * failed: `landed`; `expired` once its blockhash is too old and the node never had it. A node refusing
 * it (a failed preflight) is the job's refusal.
 */
export async function land(adapter: SolanaAdapter, noted: NotedTransaction): Promise<'landed' | 'expired'> {
  const until = Date.now() + WAIT_MS;
  for (let look = 0; Date.now() < until; look++) {
    const status = await adapter.signatureStatus(noted.signature);
    if (status !== null) {
      const final = status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized';
      if (final) return 'landed';
    } else {
      if ((await adapter.blockHeight()) > noted.lastValidBlockHeight) {
        // Asked again once past the height: a block that took it in between is one the node has now.
        if ((await adapter.signatureStatus(noted.signature)) === null) return 'expired';
        continue;
      }
      if (look % RESEND_EVERY === 0) await send(adapter, noted);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(
    `transaction ${noted.signature} is in no confirmed block yet, and its blockhash is still valid`,
  );
}

/** Sends the noted bytes; a refusal of a transaction the node has meanwhile is no refusal. */
async function send(adapter: SolanaAdapter, noted: NotedTransaction): Promise<void> {
  try {
    await adapter.sendTransaction(noted.wire);
  } catch (error) {
    if (!(error instanceof SolanaSendRefused)) throw error;
    // The node's own word that it has this transaction, before its status may be read.
    if (error.message.includes('already been processed')) return;
    if ((await adapter.signatureStatus(noted.signature)) !== null) return;
    if ((await adapter.blockHeight()) > noted.lastValidBlockHeight) return;
    throw new SponsorshipRefused(error.message);
  }
}

/** What a landed transaction took from its fee payer, from its meta. */
export interface LandedCost {
  /** Who paid it: the transaction's first account. */
  feePayer: string;
  /** The fee the runtime charged. */
  fee: bigint;
  /** All the fee payer lost (the fee and the rent of the accounts it opened). */
  payerLoss: bigint;
  /** The error it failed with (its fee charged anyway); null when it succeeded. */
  error: unknown;
}

/** The cost of a landed transaction, read from its meta (the fee payer is its first account). */
export async function landedCost(adapter: SolanaAdapter, signature: string): Promise<LandedCost> {
  for (let attempt = 1; ; attempt++) {
    const transaction = await adapter.getTransaction(signature);
    if (transaction !== null) return costOf(signature, transaction);
    if (attempt === READ_ATTEMPTS) throw new Error(`the node has no transaction ${signature} yet`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function costOf(signature: string, transaction: unknown): LandedCost {
  const meta = member(transaction, 'meta');
  const fee = lamports(member(meta, 'fee'));
  const before = lamports(first(member(meta, 'preBalances')));
  const after = lamports(first(member(meta, 'postBalances')));
  const feePayer = first(member(member(member(transaction, 'transaction'), 'message'), 'accountKeys'));
  if (fee === null || before === null || after === null || typeof feePayer !== 'string') {
    throw new Error(`the node's transaction ${signature} has no fee payer, fee or balances`);
  }
  return { feePayer, fee, payerLoss: before - after, error: member(meta, 'err') ?? null };
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : undefined;
}

/** A u64 as the lossless parser gives it: a safe number or a bigint. */
function lamports(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : null;
}
