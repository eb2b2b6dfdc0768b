// The devnet's saved chain: one versioned JSON file holding the emulator's accounts (ShardAccount BOCs),
// its logical time and clock, the blocks and every transaction (as BOCs: the API's JSON is made from
// them again). Written atomically by the saver and on close, read at start.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-file.ts';
import type { BlockRecord, ChainState } from './chain.ts';

export const SNAPSHOT_FORMAT = 'switchyard-ton-devnet';
export const SNAPSHOT_VERSION = 1;

export interface SavedTonChain {
  globalId: number;
  faucet: string;
  usdt: string;
  state: ChainState;
}

type EncodedBlock = Omit<BlockRecord, 'startLt' | 'endLt'> & { startLt: string; endLt: string };

interface TonSnapshot extends Omit<SavedTonChain, 'state'> {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  state: Omit<ChainState, 'blocks'> & { blocks: EncodedBlock[] };
}

export function encodeSnapshot(saved: SavedTonChain): string {
  const snapshot: TonSnapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    globalId: saved.globalId,
    faucet: saved.faucet,
    usdt: saved.usdt,
    state: {
      ...saved.state,
      blocks: saved.state.blocks.map((b) => ({
        ...b,
        startLt: b.startLt.toString(),
        endLt: b.endLt.toString(),
      })),
    },
  };
  return JSON.stringify(snapshot);
}

export function decodeSnapshot(text: string): SavedTonChain {
  const parsed = JSON.parse(text) as TonSnapshot;
  if (parsed?.format !== SNAPSHOT_FORMAT) throw new Error('not a TON devnet snapshot');
  if (parsed.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${parsed.version}`);
  return {
    globalId: parsed.globalId,
    faucet: parsed.faucet,
    usdt: parsed.usdt,
    state: {
      ...parsed.state,
      blocks: parsed.state.blocks.map((b) => ({ ...b, startLt: BigInt(b.startLt), endLt: BigInt(b.endLt) })),
    },
  };
}

export async function writeSnapshot(file: string, saved: SavedTonChain): Promise<void> {
  await writeFileAtomic(file, encodeSnapshot(saved));
}

/** The chain saved in `file`, or null when there is none; a file this version cannot read is an error. */
export async function readSnapshot(file: string): Promise<SavedTonChain | null> {
  if (!existsSync(file)) return null;
  try {
    return decodeSnapshot(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot carry on the TON devnet saved in ${file} (${(error as Error).message}); start afresh`,
    );
  }
}
