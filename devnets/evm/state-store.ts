// Where an EVM devnet keeps its chain between runs: anvil's own state dump (accounts, code, storage,
// blocks and transactions), gzipped as anvil_dumpState returns it, and the demo tokens' addresses, so a
// restarted devnet neither redeploys them nor moves them.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type Address, getAddress, type Hex, hexToBytes } from 'viem';
import { writeFileAtomic } from '../atomic-file.ts';
import type { DevnetRpc } from './rpc.ts';

const gunzipAsync = promisify(gunzip);

export class AnvilStateStore {
  readonly stateFile: string;
  readonly tokensFile: string;
  /** anvil's --load-state reads plain JSON: the dump is unpacked here for the start, then removed. */
  readonly loadFile: string;

  constructor(readonly dir: string) {
    this.stateFile = join(dir, 'state.json.gz');
    this.tokensFile = join(dir, 'tokens.json');
    this.loadFile = join(dir, 'load-state.json');
    this.headFile = join(dir, 'head.txt');
  }

  /** The head block number when the state was dumped: the loaded chain must reach at least it. */
  readonly headFile: string;

  /** The saved chain, unpacked for anvil, and its tokens; null when there is none (a first start). */
  async load(): Promise<{ loadFile: string; tokens: EvmDevnetTokens; head: bigint | null } | null> {
    if (!existsSync(this.stateFile)) return null;
    if (!existsSync(this.tokensFile)) {
      // The tokens are written before the first state: a state without them is not one this code wrote.
      throw new Error(`${this.stateFile} has no ${this.tokensFile} beside it; start afresh (--reset)`);
    }
    const tokens = parseTokens(await readFile(this.tokensFile, 'utf8'), this.tokensFile);
    await writeFile(this.loadFile, await gunzipAsync(await readFile(this.stateFile)), { mode: 0o600 });
    const headText = existsSync(this.headFile) ? (await readFile(this.headFile, 'utf8')).trim() : '';
    return { loadFile: this.loadFile, tokens, head: /^\d+$/.test(headText) ? BigInt(headText) : null };
  }

  async loaded(): Promise<void> {
    await rm(this.loadFile, { force: true });
  }

  async saveTokens(tokens: EvmDevnetTokens): Promise<void> {
    await writeFileAtomic(this.tokensFile, `${JSON.stringify(tokens, null, 2)}\n`);
  }

  /** anvil's whole state as of now. */
  async saveState(node: DevnetRpc): Promise<void> {
    const head = BigInt(await node.call<Hex>('eth_blockNumber'));
    const dump = await node.call<Hex>('anvil_dumpState');
    await writeFileAtomic(this.stateFile, hexToBytes(dump));
    await writeFileAtomic(this.headFile, `${head}\n`);
  }
}

function parseTokens(text: string, file: string): EvmDevnetTokens {
  const invalid = () => new Error(`${file} does not list the devnet's tokens; start afresh (--reset)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (!isRecord(parsed)) throw invalid();
  const tokens: Record<string, Record<string, Address>> = {};
  for (const [standard, bySymbol] of Object.entries(parsed)) {
    if (!isRecord(bySymbol)) throw invalid();
    tokens[standard] = {};
    for (const [symbol, address] of Object.entries(bySymbol)) {
      if (typeof address !== 'string') throw invalid();
      try {
        tokens[standard][symbol] = getAddress(address);
      } catch {
        throw invalid();
      }
    }
  }
  const usdt = tokens['erc20']?.['USDT'];
  const nft = tokens['erc721']?.['NFT'];
  if (usdt === undefined || nft === undefined) throw invalid();
  return { ...tokens, erc20: { ...tokens['erc20'], USDT: usdt }, erc721: { ...tokens['erc721'], NFT: nft } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Standard (erc20, erc721; BSC also bep20, bep721) -> symbol -> contract address. */
export type EvmDevnetTokens = { erc20: { USDT: Address }; erc721: { NFT: Address } } & Record<
  string,
  Record<string, Address>
>;
