/**
 * What the gateway knows of jettons, asked of the contracts themselves through get-methods and kept:
 * which master a jetton wallet belongs to and whose it is, and what a master says of its jetton.
 *
 * A jetton wallet is taken as the master's only after the master itself names it: `get_wallet_data` says
 * which master and owner the wallet claims, and that master's `get_wallet_address(owner)` must answer
 * this very wallet. Anyone can deploy a contract that answers `get_wallet_data` with USDT's master; no one
 * but USDT's master can make its `get_wallet_address` answer theirs. So a fake wallet never passes as USDT.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { Cell } from '@ton/core';
import { invalidField } from '../../errors.ts';
import { addressInSlice, addressSlice, cellOf } from './message-bodies.ts';
import { type TonCore, tonCore } from './ton-core.ts';
import type { Toncenter, TonStackEntry } from './toncenter.ts';

/** A jetton wallet as its master confirmed it (raw addresses). */
export interface JettonWalletIdentity {
  master: string;
  owner: string;
  balance: bigint;
}

/** A jetton master's description (TEP-74 `get_jetton_data`, TEP-64 metadata). */
export interface JettonDescription {
  master: string;
  totalSupply: bigint;
  mintable: boolean;
  admin: string | null;
  /** From on-chain metadata; null where the metadata is off-chain (a URI) or lacks the field. */
  name: string | null;
  symbol: string | null;
  description: string | null;
  /**
   * As the on-chain metadata names them; 9 (TEP-64's default) where that metadata is whole and names
   * none; null where only an off-chain document could tell (the off-chain layout, or a `uri` without
   * `decimals`) or the value does not read.
   */
  decimals: number | null;
  /** The off-chain metadata's URI, where the content is one (`uri` on chain, or the off-chain layout). */
  uri: string | null;
}

/** How many wallets and masters are remembered: each is a get-method or two the watcher need not ask again. */
const REMEMBERED = 10_000;
const DEFAULT_DECIMALS = 9;

/** A map that forgets its oldest entries past a size. */
class Remembered<V> {
  readonly #entries = new Map<string, V>();

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    this.#entries.set(key, value);
    if (this.#entries.size > REMEMBERED) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}

export class Jettons {
  readonly #wallets = new Remembered<{ master: string; owner: string } | 'not a jetton wallet'>();
  readonly #masters = new Remembered<JettonDescription | 'not a jetton master'>();

  constructor(private readonly toncenter: Pick<Toncenter, 'runGetMethod'>) {}

  /**
   * The master and owner of a genuine jetton wallet (raw addresses); null for a contract that is none, or
   * whose master does not own it. Node failures throw (the caller retries).
   */
  async wallet(address: string): Promise<{ master: string; owner: string } | null> {
    const known = this.#wallets.get(address);
    if (known !== undefined) return known === 'not a jetton wallet' ? null : known;
    const data = await this.walletData(address);
    const verdict = data !== null && (await this.#masterOwns(data.master, data.owner, address)) ? data : null;
    this.#wallets.set(
      address,
      verdict === null ? 'not a jetton wallet' : { master: verdict.master, owner: verdict.owner },
    );
    return verdict === null ? null : { master: verdict.master, owner: verdict.owner };
  }

  /** What a jetton wallet says of itself (`get_wallet_data`), unverified; null for a contract that says nothing. */
  async walletData(address: string): Promise<JettonWalletIdentity | null> {
    const core = await tonCore();
    const result = await this.toncenter.runGetMethod(address, 'get_wallet_data');
    if (result.exitCode !== 0) return null;
    const [balance, owner, master] = result.stack;
    if (balance?.type !== 'num') return null;
    const ownerAddress = sliceAddress(core, owner);
    const masterAddress = sliceAddress(core, master);
    if (ownerAddress === null || masterAddress === null) return null;
    return { master: masterAddress, owner: ownerAddress, balance: balance.value };
  }

  /** The address of `owner`'s wallet of the jetton (raw), as the master answers it; null when it answers none. */
  async walletOf(master: string, owner: string): Promise<string | null> {
    const core = await tonCore();
    const result = await this.toncenter.runGetMethod(master, 'get_wallet_address', [
      { type: 'slice', value: addressSlice(core, owner) },
    ]);
    if (result.exitCode !== 0) return null;
    return sliceAddress(core, result.stack[0]);
  }

  /** The master's description; null when the address holds no jetton master. */
  async master(address: string): Promise<JettonDescription | null> {
    const known = this.#masters.get(address);
    if (known !== undefined) return known === 'not a jetton master' ? null : known;
    const core = await tonCore();
    const result = await this.toncenter.runGetMethod(address, 'get_jetton_data');
    const [supply, mintable, admin, content] = result.stack;
    const described =
      result.exitCode !== 0 || supply?.type !== 'num' || mintable?.type !== 'num'
        ? null
        : {
            master: address,
            totalSupply: supply.value,
            mintable: mintable.value !== 0n,
            admin: sliceAddress(core, admin),
            ...readMetadata(core, content),
          };
    // Metadata can change (an admin may update it); a master's existence cannot, so only "none" is kept.
    if (described === null) this.#masters.set(address, 'not a jetton master');
    else this.#masters.set(address, described);
    return described;
  }

  async #masterOwns(master: string, owner: string, wallet: string): Promise<boolean> {
    const named = await this.walletOf(master, owner);
    return named !== null && named.toLowerCase() === wallet.toLowerCase();
  }
}

function sliceAddress(core: TonCore, entry: TonStackEntry | undefined): string | null {
  if (entry === undefined || (entry.type !== 'slice' && entry.type !== 'cell')) return null;
  return addressInSlice(core, entry.value);
}

type Metadata = Pick<JettonDescription, 'name' | 'symbol' | 'description' | 'decimals' | 'uri'>;

const NO_METADATA: Metadata = {
  name: null,
  symbol: null,
  description: null,
  decimals: null,
  uri: null,
};

/** TEP-64 content: on-chain (0x00, a dictionary by the keys' sha256) or off-chain (0x01, a URI). */
function readMetadata(core: TonCore, entry: TonStackEntry | undefined): Metadata {
  if (entry === undefined || (entry.type !== 'cell' && entry.type !== 'slice')) return NO_METADATA;
  const cell = cellOf(core, entry.value);
  if (cell === null) return NO_METADATA;
  try {
    const slice = cell.beginParse();
    const layout = slice.loadUint(8);
    if (layout === 0x01) return { ...NO_METADATA, uri: slice.loadStringTail() };
    if (layout !== 0x00) return NO_METADATA;
    const dictionary = core.Dictionary.load(
      core.Dictionary.Keys.Buffer(32),
      core.Dictionary.Values.Cell(),
      slice,
    );
    const text = (key: string) => snakeText(dictionary.get(keyOf(key)));
    const named = dictionary.has(keyOf('decimals')) ? decimalsOf(text('decimals')) : null;
    const uri = text('uri');
    return {
      name: text('name'),
      symbol: text('symbol'),
      description: text('description'),
      // With a `uri` the document may name decimals of its own: the default holds only without one.
      decimals: dictionary.has(keyOf('decimals')) ? named : uri === null ? DEFAULT_DECIMALS : null,
      uri,
    };
  } catch {
    return NO_METADATA;
  }
}

/** A metadata key: the sha256 of its name. */
function keyOf(name: string): Buffer {
  return Buffer.from(sha256(new TextEncoder().encode(name)));
}

/** A `decimals` value as TEP-64 writes it (a decimal number, 0-255); null when it is none. */
function decimalsOf(text: string | null): number | null {
  if (text === null || !/^[0-9]{1,3}$/.test(text)) return null;
  const decimals = Number(text);
  return decimals <= 255 ? decimals : null;
}

/**
 * The decimals an amount of the jetton is written in, for a send or an estimate; a jetton whose decimals
 * only an off-chain document tells is refused, as the gateway does not fetch it and a guess could move a
 * thousand times the amount meant.
 */
export function amountDecimals(description: Pick<JettonDescription, 'decimals'>): number {
  if (description.decimals !== null) return description.decimals;
  throw invalidField(
    'contractaddress',
    "The jetton's decimals are not in its on-chain metadata (only an off-chain document could tell them), so an amount of it cannot be read safely.",
  );
}

/** The decimals a jetton's amounts are reported in: its own, or 0 (base units) where they are not on chain. */
export function reportedDecimals(description: Pick<JettonDescription, 'decimals'>): number {
  return description.decimals ?? 0;
}

/** A metadata value: `snake#00` then UTF-8; null for the chunked layout or a value that does not read. */
function snakeText(cell: Cell | undefined): string | null {
  if (cell === undefined) return null;
  try {
    const slice = cell.beginParse();
    return slice.loadUint(8) === 0x00 ? slice.loadStringTail() : null;
  } catch {
    return null;
  }
}
