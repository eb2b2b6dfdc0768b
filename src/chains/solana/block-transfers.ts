/**
 * Every successful SOL and SPL transfer of one Solana block, for the webhook watchers, from the node's
 * answer to `getBlock(slot, {encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0,
 * rewards: false, commitment: 'confirmed'})`. Pure: the caller fetches, this only reads.
 *
 * Why two sources per asset: instructions say who sent what to whom, but only for the programs decoded
 * here (System; SPL Token and Token-2022). Programs move lamports and tokens in ways no instruction shows
 * (an account closed into another, a program's own CPIs), so each transaction's balance changes are
 * compared with what its decoded instructions explain, and what is left over is reported too: to the
 * account (or token owner) that gained, from the one that lost the most without explanation.
 *
 * Amounts are u64s: balances must arrive as exact integers (numbers within 2^53, or bigints from
 * json/lossless-parse.ts); a rounded one is refused rather than turned into a wrong residual.
 */

import type { FollowedBlock } from '../follower.ts';
import type { Network, TransferEvent } from '../types.ts';
import { fromBase58 } from './codec.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token-accounts.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM]);
const SOL_DECIMALS = 9;

/** A getBlock answer this decoder cannot trust; the watcher retries the slot. */
export class SolanaBlockError extends Error {
  override readonly name = 'SolanaBlockError';

  constructor(
    readonly slot: bigint,
    detail: string,
  ) {
    super(`Solana block at slot ${slot}: ${detail}`);
  }
}

type Json = Record<string, unknown>;

/** A compiled instruction with its account indexes checked against the transaction's keys. */
interface Instruction {
  program: string;
  accounts: number[];
  /** Base58, decoded only for the programs read here (vote instructions are most of a block). */
  data: string;
}

interface TokenBalance {
  mint: string;
  owner: string;
  amount: bigint;
  decimals: number;
}

/** What one transaction's decoded instructions moved; the residuals are measured against these. */
interface SolMove {
  from: string;
  to: string;
  amount: bigint;
}

interface TokenMove {
  mint: string;
  /** Owners; null source for a mint, null destination for a burn (explains, never reported). */
  from: string | null;
  to: string | null;
  amount: bigint;
  decimals: number;
}

type Move = ({ kind: 'SOL' } & SolMove) | ({ kind: 'SPL' } & TokenMove);

export function solanaBlockOf(
  slot: bigint,
  block: unknown,
  chain: 'solana',
  network: Network,
): FollowedBlock {
  const read = new Reader(slot);
  const root = read.object(block, 'block');
  const hash = read.hash(root['blockhash'], 'blockhash');
  const parent = {
    number: read.u64(root['parentSlot'], 'parentSlot'),
    hash: read.hash(root['previousBlockhash'], 'previousBlockhash'),
  };
  // Slot 0 is its own parent; any other block builds on an earlier slot, or following it would loop.
  if (slot === 0n ? parent.number !== 0n : parent.number >= slot) {
    throw read.fail(`parentSlot ${parent.number} is not below the slot`);
  }
  // Null only for blocks from before timestamps were kept; the watcher reads recent confirmed blocks.
  if (root['blockTime'] === null || root['blockTime'] === undefined) throw read.fail('no blockTime');
  const time = new Date(Number(read.u64(root['blockTime'], 'blockTime')) * 1000);

  const base = { chain, network, blockNumber: slot, blockHash: hash, time };
  const transfers: TransferEvent[] = [];
  for (const [i, entry] of read.array(root['transactions'], 'transactions').entries()) {
    for (const move of transactionMoves(read, entry, `transactions[${i}]`)) {
      transfers.push({ ...base, ...move });
    }
  }
  return { number: slot, hash, parent, time, transfers };
}

/**
 * The transfers of one transaction as `getTransaction` answers it (json encoding, read exactly), for
 * the decoded-transaction read; none when it failed.
 */
export function transactionTransfers(slot: bigint, transaction: unknown): TransferFields[] {
  return transactionMoves(new Reader(slot), transaction, 'transaction');
}

type TransferFields = Pick<
  TransferEvent,
  'txid' | 'logIndex' | 'from' | 'to' | 'contractAddress' | 'tokenId' | 'type' | 'amountRaw' | 'decimals'
>;

function transactionMoves(read: Reader, entry: unknown, at: string): TransferFields[] {
  const tx = read.object(entry, at);
  const meta = read.object(tx['meta'], `${at}.meta`);
  if (!('err' in meta)) throw read.fail(`${at}.meta has no err`);
  if (meta['err'] !== null) return [];

  const transaction = read.object(tx['transaction'], `${at}.transaction`);
  const signatures = read.array(transaction['signatures'], `${at}.transaction.signatures`);
  const txid = read.string(signatures[0], `${at}.transaction.signatures[0]`);
  const message = read.object(transaction['message'], `${at}.transaction.message`);
  const keys = read.strings(message['accountKeys'], `${at}.transaction.message.accountKeys`);
  // v0: the keys loaded from lookup tables follow the message's own, writable first.
  if (meta['loadedAddresses'] !== undefined && meta['loadedAddresses'] !== null) {
    const loaded = read.object(meta['loadedAddresses'], `${at}.meta.loadedAddresses`);
    keys.push(...read.strings(loaded['writable'], `${at}.meta.loadedAddresses.writable`));
    keys.push(...read.strings(loaded['readonly'], `${at}.meta.loadedAddresses.readonly`));
  }

  const instructions = orderedInstructions(read, message, meta, keys, at);
  const tokenAccounts = tokenAccountsOf(read, meta, keys.length, at);
  const moves: Move[] = [];
  for (const [i, ix] of instructions.entries()) {
    const where = `${at} instruction ${i}`;
    if (ix.program === SYSTEM_PROGRAM) {
      const move = systemMove(read.base58(ix.data, where), ix.accounts, keys);
      if (move) moves.push({ kind: 'SOL', ...move });
    } else if (TOKEN_PROGRAMS.has(ix.program)) {
      const move = tokenMove(read, read.base58(ix.data, where), ix.accounts, tokenAccounts, where);
      if (move) moves.push({ kind: 'SPL', ...move });
    }
  }

  const events: Omit<TransferFields, 'txid' | 'logIndex'>[] = [];
  for (const move of moves) {
    // Burns only explain a balance; zero amounts move nothing.
    if (move.amount === 0n || move.to === null) continue;
    events.push(move.kind === 'SOL' ? solEvent(move.from, move.to, move.amount) : splEvent(move));
  }
  const sol = moves.filter((m): m is { kind: 'SOL' } & SolMove => m.kind === 'SOL');
  const spl = moves.filter((m): m is { kind: 'SPL' } & TokenMove => m.kind === 'SPL');
  events.push(...solResiduals(read, meta, keys, sol, at));
  events.push(...tokenResiduals(tokenAccounts, spl));
  return events.map((event, logIndex) => ({ txid, logIndex, ...event }));
}

function solEvent(from: string | null, to: string, amount: bigint) {
  return {
    from,
    to,
    contractAddress: null,
    tokenId: null,
    type: 'SOL',
    amountRaw: amount,
    decimals: SOL_DECIMALS,
  };
}

function splEvent(move: TokenMove) {
  return {
    from: move.from,
    to: move.to,
    contractAddress: move.mint,
    tokenId: null,
    type: 'SPL',
    amountRaw: move.amount,
    decimals: move.decimals,
  };
}

/** Top-level instruction i, then the inner instructions it invoked, as they ran. */
function orderedInstructions(read: Reader, message: Json, meta: Json, keys: string[], at: string) {
  const instruction = (value: unknown, where: string): Instruction => {
    const ix = read.object(value, where);
    const programIndex = read.index(ix['programIdIndex'], keys.length, `${where}.programIdIndex`);
    const accounts = read
      .array(ix['accounts'], `${where}.accounts`)
      .map((a, j) => read.index(a, keys.length, `${where}.accounts[${j}]`));
    return { program: keys[programIndex]!, accounts, data: read.string(ix['data'], `${where}.data`, true) };
  };
  const topAt = `${at}.transaction.message.instructions`;
  const top = read.array(message['instructions'], topAt).map((ix, i) => instruction(ix, `${topAt}[${i}]`));
  const inner = new Map<number, Instruction[]>();
  const innerAt = `${at}.meta.innerInstructions`;
  // Absent or null only where the node recorded none (older ledgers): nothing ran inside.
  const innerValue = meta['innerInstructions'];
  const innerList = innerValue === null || innerValue === undefined ? [] : read.array(innerValue, innerAt);
  for (const [g, value] of innerList.entries()) {
    const group = read.object(value, `${innerAt}[${g}]`);
    // Inner instructions of no top-level one would have nowhere to go: their moves would vanish.
    const index = read.index(group['index'], top.length, `${innerAt}[${g}].index`);
    const list = read
      .array(group['instructions'], `${innerAt}[${g}].instructions`)
      .map((ix, j) => instruction(ix, `${innerAt}[${g}].instructions[${j}]`));
    inner.set(index, [...(inner.get(index) ?? []), ...list]);
  }
  return top.flatMap((ix, i) => [ix, ...(inner.get(i) ?? [])]);
}

/**
 * System instructions that move lamports, as the System program lays them out (bincode: u32 LE variant,
 * u64 LE amounts, strings as u64 length + bytes). Data a successful transaction's System program could not
 * have run is left to the residuals.
 */
function systemMove(data: Uint8Array, accounts: number[], keys: string[]): SolMove | null {
  if (data.length < 4) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const account = (position: number) => {
    const index = accounts[position];
    return index === undefined ? null : keys[index]!;
  };
  let amountAt: number;
  let to: string | null;
  switch (view.getUint32(0, true)) {
    case 0: // CreateAccount { lamports, space, owner }: [funding, new]
    case 2: // Transfer { lamports }: [from, to]
      amountAt = 4;
      to = account(1);
      break;
    case 3: {
      // CreateAccountWithSeed { base, seed, lamports, space, owner }: [funding, new, base?]
      if (data.length < 44) return null;
      const seedLength = view.getBigUint64(36, true);
      if (seedLength > BigInt(data.length)) return null;
      amountAt = 44 + Number(seedLength);
      to = account(1);
      break;
    }
    case 11: // TransferWithSeed { lamports, from_seed, from_owner }: [from, base, to]
      amountAt = 4;
      to = account(2);
      break;
    default:
      return null;
  }
  const from = account(0);
  if (from === null || to === null || data.length < amountAt + 8) return null;
  return { from, to, amount: view.getBigUint64(amountAt, true) };
}

/** Token accounts of the transaction by account index: mint, owner, decimals; balances before and after. */
interface TokenAccount {
  mint: string;
  owner: string;
  decimals: number;
  pre: bigint;
  post: bigint;
}

function tokenAccountsOf(read: Reader, meta: Json, keyCount: number, at: string): Map<number, TokenAccount> {
  const accounts = new Map<number, TokenAccount>();
  const balances = (field: 'preTokenBalances' | 'postTokenBalances') => {
    const out = new Map<number, TokenBalance>();
    const value = meta[field];
    if (value === null || value === undefined) return out;
    for (const [i, item] of read.array(value, `${at}.meta.${field}`).entries()) {
      const where = `${at}.meta.${field}[${i}]`;
      const entry = read.object(item, where);
      // Other programs' accounts (none today) would follow another layout.
      if (!TOKEN_PROGRAMS.has(read.string(entry['programId'], `${where}.programId`))) continue;
      const ui = read.object(entry['uiTokenAmount'], `${where}.uiTokenAmount`);
      const amount = read.string(ui['amount'], `${where}.uiTokenAmount.amount`);
      if (!/^\d{1,20}$/.test(amount)) throw read.fail(`${where}.uiTokenAmount.amount is not a u64`);
      out.set(read.index(entry['accountIndex'], keyCount, `${where}.accountIndex`), {
        mint: read.string(entry['mint'], `${where}.mint`),
        owner: read.string(entry['owner'], `${where}.owner`),
        amount: BigInt(amount),
        decimals: read.index(ui['decimals'], 256, `${where}.uiTokenAmount.decimals`),
      });
    }
    return out;
  };
  const pre = balances('preTokenBalances');
  const post = balances('postTokenBalances');
  for (const index of [...new Set([...pre.keys(), ...post.keys()])].sort((a, b) => a - b)) {
    // An account missing before was created by this transaction: its owner is the one it was made for.
    const known = (pre.get(index) ?? post.get(index))!;
    accounts.set(index, {
      mint: known.mint,
      owner: known.owner,
      decimals: known.decimals,
      pre: pre.get(index)?.amount ?? 0n,
      // Missing after: closed, and a token account can only be closed empty.
      post: post.get(index)?.amount ?? 0n,
    });
  }
  return accounts;
}

/** SPL Token and Token-2022 share these layouts: u8 tag, u64 LE amount (then u8 decimals for *Checked). */
function tokenMove(
  read: Reader,
  data: Uint8Array,
  accounts: number[],
  tokenAccounts: Map<number, TokenAccount>,
  where: string,
): TokenMove | null {
  if (data.length < 9) return null;
  let source: number | undefined;
  let destination: number | undefined;
  switch (data[0]) {
    case 3: // Transfer: [source, destination, authority]
      [source, destination] = accounts;
      break;
    case 12: // TransferChecked: [source, mint, destination, authority]
      [source, , destination] = accounts;
      break;
    case 7: // MintTo: [mint, destination, authority]
    case 14: // MintToChecked
      [, destination] = accounts;
      break;
    case 8: // Burn: [account, mint, authority]
    case 15: // BurnChecked
      [source] = accounts;
      break;
    default:
      return null;
  }
  const tokenAccount = (index: number | undefined) => {
    if (index === undefined) return null;
    const found = tokenAccounts.get(index);
    // The node lists every token account a transaction touches; a successful move without one is a gap.
    if (!found) throw read.fail(`${where} moves tokens of account ${index}, which has no token balance`);
    return found;
  };
  const from = tokenAccount(source);
  const to = tokenAccount(destination);
  const known = (from ?? to)!;
  return {
    mint: known.mint,
    from: from?.owner ?? null,
    to: to?.owner ?? null,
    amount: new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true),
    decimals: known.decimals,
  };
}

/**
 * Lamports no decoded instruction explains: each account's change (the fee added back to the payer)
 * minus what the decoded moves account for. A gain is reported from the largest unexplained loss.
 */
function solResiduals(read: Reader, meta: Json, keys: string[], moves: SolMove[], at: string) {
  const pre = read.u64s(meta['preBalances'], keys.length, `${at}.meta.preBalances`);
  const post = read.u64s(meta['postBalances'], keys.length, `${at}.meta.postBalances`);
  const fee = read.u64(meta['fee'], `${at}.meta.fee`);
  const unexplained = new Map<string, bigint>();
  const add = (key: string, amount: bigint) => unexplained.set(key, (unexplained.get(key) ?? 0n) + amount);
  keys.forEach((key, i) => {
    add(key, post[i]! - pre[i]! + (i === 0 ? fee : 0n));
  });
  for (const move of moves) {
    add(move.from, move.amount);
    add(move.to, -move.amount);
  }
  const from = largestLoss(unexplained);
  return [...unexplained]
    .filter(([, amount]) => amount > 0n)
    .map(([to, amount]) => solEvent(from, to, amount));
}

/** As solResiduals, per (mint, owner): covers programs that move tokens by CPIs not shown or not decoded. */
function tokenResiduals(tokenAccounts: Map<number, TokenAccount>, moves: TokenMove[]) {
  const byMint = new Map<string, { decimals: number; owners: Map<string, bigint> }>();
  const add = (mint: string, decimals: number, owner: string, amount: bigint) => {
    const entry = byMint.get(mint) ?? { decimals, owners: new Map<string, bigint>() };
    byMint.set(mint, entry);
    entry.owners.set(owner, (entry.owners.get(owner) ?? 0n) + amount);
  };
  for (const account of tokenAccounts.values()) {
    add(account.mint, account.decimals, account.owner, account.post - account.pre);
  }
  for (const move of moves) {
    if (move.from !== null) add(move.mint, move.decimals, move.from, move.amount);
    if (move.to !== null) add(move.mint, move.decimals, move.to, -move.amount);
  }
  return [...byMint].flatMap(([mint, { decimals, owners }]) => {
    const from = largestLoss(owners);
    return [...owners]
      .filter(([, amount]) => amount > 0n)
      .map(([to, amount]) => splEvent({ mint, from, to, amount, decimals }));
  });
}

/** The key that lost the most, or null when none lost anything; the first of equals. */
function largestLoss(changes: Map<string, bigint>): string | null {
  let found: string | null = null;
  let lowest = 0n;
  for (const [key, amount] of changes) {
    if (amount < lowest) {
      found = key;
      lowest = amount;
    }
  }
  return found;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Reads the node's JSON, naming the slot and the field in what it throws. */
class Reader {
  constructor(readonly slot: bigint) {}

  fail(detail: string): SolanaBlockError {
    return new SolanaBlockError(this.slot, detail);
  }

  object(value: unknown, where: string): Json {
    if (!isObject(value)) throw this.fail(`${where} is not an object`);
    return value;
  }

  array(value: unknown, where: string): unknown[] {
    if (!Array.isArray(value)) throw this.fail(`${where} is not an array`);
    return value;
  }

  string(value: unknown, where: string, emptyAllowed = false): string {
    if (typeof value !== 'string' || (value === '' && !emptyAllowed))
      throw this.fail(`${where} is not a string`);
    return value;
  }

  strings(value: unknown, where: string): string[] {
    return this.array(value, where).map((item, i) => this.string(item, `${where}[${i}]`));
  }

  hash(value: unknown, where: string): string {
    const text = this.string(value, where);
    if (!BASE58_ADDRESS.test(text)) throw this.fail(`${where} is not a base58 hash`);
    return text;
  }

  /** A u64 written as a JSON integer: a number within 2^53, or a bigint from the lossless parser. */
  u64(value: unknown, where: string): bigint {
    if (typeof value === 'bigint' && value >= 0n && value < 2n ** 64n) return value;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
      // Beyond 2^53 JSON.parse has already rounded it: refuse rather than compute with a wrong amount.
      if (!Number.isSafeInteger(value)) throw this.fail(`${where} was rounded; parse the answer losslessly`);
      return BigInt(value);
    }
    throw this.fail(`${where} is not a u64`);
  }

  u64s(value: unknown, length: number, where: string): bigint[] {
    const list = this.array(value, where);
    if (list.length !== length) throw this.fail(`${where} has ${list.length} entries for ${length} accounts`);
    return list.map((item, i) => this.u64(item, `${where}[${i}]`));
  }

  /** A small integer below `limit` (an index into something of that length). */
  index(value: unknown, limit: number, where: string): number {
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n >= limit) {
      throw this.fail(`${where} is not an index below ${limit}`);
    }
    return n;
  }

  base58(text: string, where: string): Uint8Array {
    // Empty instruction data is written as the empty string, which is base58 of no bytes.
    const bytes = text === '' ? new Uint8Array(0) : fromBase58(text);
    if (bytes === null) throw this.fail(`${where} data is not base58`);
    return bytes;
  }
}
