// The devnet's saved chain: one versioned JSON file (bigints tagged, bytes in base64) holding the slot
// counter, blocks, skipped slots, the transaction store, every touched account and the undo logs. Written
// atomically (tmp file + rename) by the saver and on close, read at start.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-file.ts';
import type { AccountState, ChainState, TxRecord, UndoEntry } from './chain.ts';
import { decodeWireTransaction, fromBase64, toBase64 } from './codec.ts';
import { parseTagged, stringifyTagged } from './json.ts';

export const SNAPSHOT_FORMAT = 'switchyard-solana-devnet';
export const SNAPSHOT_VERSION = 1;

export interface SavedSolanaChain {
  faucet: string;
  tokens: Record<string, string>;
  state: ChainState;
}

interface EncodedAccount extends Omit<AccountState, 'data'> {
  data: string;
}

interface EncodedUndo {
  address: string;
  before: EncodedAccount | null;
}

interface SolanaSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  faucet: string;
  tokens: Record<string, string>;
  state: Omit<ChainState, 'txs' | 'accounts' | 'undo' | 'pendingUndo'> & {
    txs: (Omit<TxRecord, 'tx'> & { tx: string })[];
    accounts: [string, EncodedAccount][];
    undo: [bigint, EncodedUndo[]][];
    pendingUndo: EncodedUndo[];
  };
}

const encodeAccount = (a: AccountState): EncodedAccount => ({ ...a, data: toBase64(a.data) });
const decodeAccount = (a: EncodedAccount): AccountState => ({ ...a, data: fromBase64(a.data) });
const encodeUndo = (e: UndoEntry): EncodedUndo => ({
  address: e.address,
  before: e.before && encodeAccount(e.before),
});
const decodeUndo = (e: EncodedUndo): UndoEntry => ({
  address: e.address,
  before: e.before && decodeAccount(e.before),
});

export function encodeSnapshot(saved: SavedSolanaChain): string {
  const s = saved.state;
  const snapshot: SolanaSnapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    faucet: saved.faucet,
    tokens: saved.tokens,
    state: {
      ...s,
      txs: s.txs.map((r) => ({
        signature: r.signature,
        slot: r.slot,
        meta: r.meta,
        tx: toBase64(r.tx.bytes),
      })),
      accounts: s.accounts.map(([address, a]) => [address, encodeAccount(a)]),
      undo: s.undo.map(([slot, entries]) => [slot, entries.map(encodeUndo)]),
      pendingUndo: s.pendingUndo.map(encodeUndo),
    },
  };
  return stringifyTagged(snapshot);
}

export function decodeSnapshot(text: string): SavedSolanaChain {
  const parsed = parseTagged(text) as SolanaSnapshot;
  if (parsed?.format !== SNAPSHOT_FORMAT) throw new Error('not a Solana devnet snapshot');
  if (parsed.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${parsed.version}`);
  const s = parsed.state;
  return {
    faucet: parsed.faucet,
    tokens: parsed.tokens,
    state: {
      ...s,
      txs: s.txs.map((r) => ({ ...r, tx: decodeWireTransaction(fromBase64(r.tx)) })),
      accounts: s.accounts.map(([address, a]) => [address, decodeAccount(a)]),
      undo: s.undo.map(([slot, entries]) => [slot, entries.map(decodeUndo)]),
      pendingUndo: s.pendingUndo.map(decodeUndo),
    },
  };
}

export async function writeSnapshot(file: string, saved: SavedSolanaChain): Promise<void> {
  await writeFileAtomic(file, encodeSnapshot(saved));
}

/** The chain saved in `file`, or null when there is none; a file this version cannot read is an error. */
export async function readSnapshot(file: string): Promise<SavedSolanaChain | null> {
  if (!existsSync(file)) return null;
  try {
    return decodeSnapshot(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot carry on the Solana devnet saved in ${file} (${(error as Error).message}); start afresh`,
    );
  }
}
