// The devnet's saved chain: a small, versioned JSON file holding the blocks, each transaction's result,
// the recent worlds (accounts, balances, resources, TRC10 assets, contracts with code and storage) and the
// demo tokens. Written atomically on a timer and on close, read at start.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-file.ts';
import type { HexAddress } from './address.ts';
import type { ChainHistory, TronChain } from './chain.ts';
import type { Genesis } from './genesis.ts';
import {
  decodeBlock,
  decodeInfo,
  decodeWorld,
  type Encoded,
  type EncodedBlock,
  encodeBlock,
  encodeInfo,
  encodeWorld,
} from './snapshot-codec.ts';
import type { WorldState } from './state.ts';
import type { TransactionInfo } from './transaction-info.ts';

export const SNAPSHOT_FORMAT = 'switchyard-tron-devnet';
export const SNAPSHOT_VERSION = 1;

/** Who runs the chain: a snapshot only carries on under the same keys. */
export interface SnapshotKeys {
  faucet: HexAddress;
  witness: HexAddress;
}

export interface TronSnapshot extends SnapshotKeys {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  /** Demo tokens, 41-hex contract addresses and TRC10 ids, as at genesis. */
  tokens: Genesis['tokens'];
  blocks: EncodedBlock[];
  transactions: Encoded<TransactionInfo>[];
  /** The world after each recent block; consecutive blocks that left it alike share one entry. */
  worlds: { fromBlock: string; toBlock: string; world: Encoded<WorldState> }[];
}

export interface SavedChain extends SnapshotKeys {
  tokens: Genesis['tokens'];
  history: ChainHistory;
}

export function takeSnapshot(chain: TronChain, keys: SnapshotKeys, tokens: Genesis['tokens']): TronSnapshot {
  const history = chain.history();
  type WorldEntry = TronSnapshot['worlds'][number];
  const worlds: WorldEntry[] = [];
  let last: { text: string; entry: WorldEntry } | null = null;
  for (const [number, world] of [...history.worlds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const encoded = encodeWorld(world);
    const text = JSON.stringify(encoded);
    if (last && last.text === text && BigInt(last.entry.toBlock) + 1n === number) {
      last.entry.toBlock = number.toString();
      continue;
    }
    const entry: WorldEntry = { fromBlock: number.toString(), toBlock: number.toString(), world: encoded };
    worlds.push(entry);
    last = { text, entry };
  }
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    faucet: keys.faucet,
    witness: keys.witness,
    tokens,
    blocks: history.blocks.map(encodeBlock),
    transactions: history.infos.map(encodeInfo),
    worlds,
  };
}

export function restoreSnapshot(snapshot: TronSnapshot): SavedChain {
  const worlds = new Map<bigint, WorldState>();
  for (const entry of snapshot.worlds) {
    const world = decodeWorld(entry.world);
    // Blocks that shared a world share the object too: none of them is ever written to.
    for (let n = BigInt(entry.fromBlock); n <= BigInt(entry.toBlock); n++) worlds.set(n, world);
  }
  return {
    faucet: snapshot.faucet,
    witness: snapshot.witness,
    tokens: snapshot.tokens,
    history: {
      blocks: snapshot.blocks.map(decodeBlock),
      infos: snapshot.transactions.map(decodeInfo),
      worlds,
    },
  };
}

export async function writeSnapshot(file: string, snapshot: TronSnapshot): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(snapshot));
}

/** The snapshot in `file`, or null when there is none; a file this version cannot read is an error. */
export async function readSnapshot(file: string): Promise<SavedChain | null> {
  if (!existsSync(file)) return null;
  const unreadable = (why: string) =>
    new Error(`cannot carry on the Tron devnet saved in ${file} (${why}); start afresh (--reset)`);
  let parsed: TronSnapshot;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw unreadable((error as Error).message);
  }
  if (parsed?.format !== SNAPSHOT_FORMAT) throw unreadable('not a devnet snapshot');
  if (parsed.version !== SNAPSHOT_VERSION) throw unreadable(`snapshot version ${parsed.version}`);
  try {
    return restoreSnapshot(parsed);
  } catch (error) {
    throw unreadable((error as Error).message);
  }
}
