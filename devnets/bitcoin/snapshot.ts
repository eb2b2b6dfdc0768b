// The devnet's saved chain: one versioned JSON file holding the network, the blocks after genesis (header
// fields and raw transactions), the mempool and the fee estimates. Written atomically; read at start.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-file.ts';
import type { ChainState } from './chain.ts';
import type { FeeEstimates } from './fees.ts';
import type { DevnetBitcoinNetwork } from './networks.ts';

export const SNAPSHOT_FORMAT = 'switchyard-bitcoin-devnet';
export const SNAPSHOT_VERSION = 1;

export interface SavedBitcoinChain {
  network: DevnetBitcoinNetwork;
  faucet: string;
  feeEstimates: FeeEstimates;
  state: ChainState;
}

export async function writeSnapshot(file: string, saved: SavedBitcoinChain): Promise<void> {
  await writeFileAtomic(
    file,
    JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, ...saved }),
  );
}

/** The chain saved in `file`, or null when there is none; a file this version cannot read is an error. */
export async function readSnapshot(file: string): Promise<SavedBitcoinChain | null> {
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    if (parsed['format'] !== SNAPSHOT_FORMAT) throw new Error('not a Bitcoin devnet snapshot');
    if (parsed['version'] !== SNAPSHOT_VERSION)
      throw new Error(`snapshot version ${String(parsed['version'])}`);
    const state = parsed['state'] as ChainState;
    if (!Array.isArray(state?.blocks) || !Array.isArray(state.mempool)) throw new Error('no chain in it');
    return {
      network: parsed['network'] as DevnetBitcoinNetwork,
      faucet: String(parsed['faucet']),
      feeEstimates: parsed['feeEstimates'] as FeeEstimates,
      state,
    };
  } catch (error) {
    throw new Error(
      `cannot carry on the Bitcoin devnet saved in ${file} (${(error as Error).message}); start afresh`,
    );
  }
}
