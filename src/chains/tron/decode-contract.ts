/**
 * What a Tron transaction does, read from its first contract (the one Tron executes) alone. Pure: token
 * decimals are the caller's business. Two readings, for two sources:
 * - `decodeContract`, for a transaction a caller signed and wants broadcast: a TRX, TRC10, TRC20 or TRC721
 *   transfer with its parties and base-unit amount, or some other call. A transfer whose amount or asset
 *   id the node could not read either is refused (MalformedContractError), so that nothing malformed
 *   reaches the node or the history.
 * - `decodeTransfer`, for a transaction the node returned: what the decoded-transaction lookup shows,
 *   never refused.
 */
import { functionSelector } from './abi.ts';
import { isTronAddress, toBase58Address } from './address.ts';
import { TRC20_TRANSFER, TRC721_TRANSFER_FROM } from './contract-calls.ts';

/** A transfer field the node could not read: the transaction's raw_data is at fault. */
export class MalformedContractError extends Error {
  override readonly name = 'MalformedContractError';
}

interface Parties {
  /** Base58; null when the field is missing or not an address. */
  from: string | null;
  to: string | null;
}

export type DecodedContract =
  | (Parties & { type: 'TRX'; amount: bigint })
  | (Parties & { type: 'TRC10'; tokenId: string; amount: bigint })
  | (Parties & { type: 'TRC20'; contract: string; amount: bigint })
  | (Parties & { type: 'TRC721'; contract: string; tokenId: bigint })
  /** Any other smart-contract call; `to` is the contract called. */
  | (Parties & { type: 'CONTRACT'; contract: string | null })
  /** Any other system contract (staking, votes ...), by its java-tron name. */
  | (Parties & { type: 'OTHER'; contractType: string });

type Json = Record<string, unknown>;

const TRC20_TRANSFER_SELECTOR = functionSelector(TRC20_TRANSFER);
/** transferFrom and safeTransferFrom move a TRC721 token alike: (from, to, tokenId[, data]). */
const TRC721_TRANSFER_FROM_SELECTOR = functionSelector(TRC721_TRANSFER_FROM);
const TRC721_SELECTORS = new Set([
  TRC721_TRANSFER_FROM_SELECTOR,
  functionSelector('safeTransferFrom(address,address,uint256)'),
  functionSelector('safeTransferFrom(address,address,uint256,bytes)'),
]);
const SELECTOR_CHARS = 8;
const WORD_CHARS = 64;
/** An int64 in java-tron's JSON: a number, or beyond 2^53 its digits as text (or a bigint, read exactly). */
const WHOLE_NUMBER = /^\d{1,19}$/;
const TRC10_ID = /^[1-9]\d{0,18}$/;

/** Decodes `tx.raw_data.contract[0]`. @throws MalformedContractError for a transfer amount or asset id that is not one. */
export function decodeContract(tx: { raw_data?: unknown; visible?: unknown }): DecodedContract {
  const contract = firstContract(tx.raw_data);
  const value = objectAt(objectAt(contract, 'parameter'), 'value');
  const type = typeof contract['type'] === 'string' ? contract['type'] : 'UNKNOWN';
  const from = addressIn(value['owner_address']);
  const to = addressIn(value['to_address']);
  if (type === 'TransferContract') {
    return { type: 'TRX', from, to, amount: wholeNumber(value['amount'], 'TransferContract', ' of sun') };
  }
  if (type === 'TransferAssetContract') {
    const tokenId = trc10Id(value['asset_name'], tx.visible === true);
    return {
      type: 'TRC10',
      from,
      to,
      tokenId,
      amount: wholeNumber(value['amount'], 'TransferAssetContract'),
    };
  }
  if (type === 'TriggerSmartContract') return decodeCall(from, value);
  return { type: 'OTHER', contractType: type, from, to: null };
}

/** A TRC20 transfer or TRC721 transferFrom by its call data; any other call as a plain CONTRACT call. */
function decodeCall(from: string | null, value: Json): DecodedContract {
  const contract = addressIn(value['contract_address']);
  const data = typeof value['data'] === 'string' ? value['data'].toLowerCase() : '';
  const selector = data.slice(0, SELECTOR_CHARS);
  const words = callWords(data);
  if (contract !== null && words !== null) {
    if (selector === TRC20_TRANSFER_SELECTOR && words.length >= 2) {
      return { type: 'TRC20', from, to: wordAddress(words[0]!), contract, amount: BigInt(`0x${words[1]}`) };
    }
    if (TRC721_SELECTORS.has(selector) && words.length >= 3) {
      const tokenId = BigInt(`0x${words[2]}`);
      return { type: 'TRC721', from: wordAddress(words[0]!), to: wordAddress(words[1]!), contract, tokenId };
    }
  }
  return { type: 'CONTRACT', from, to: contract, contract };
}

/** What the decoded-transaction lookup shows of a transaction's first contract. */
export interface DecodedTransfer {
  /** `Tron`, `TRC10`, `TRC20`, `TRC721`, `CONTRACT`, or another system contract's name without `Contract`. */
  type: string;
  from: string | null;
  to: string | null;
  /** Base units. */
  amount: bigint | null;
  contractaddress: string | null;
  tokenid: string | null;
}

/**
 * The lookup's reading of a transaction the node returned: a TRC20 `transfer` or TRC721 `transferFrom` by
 * its call data, another call as CONTRACT, another system contract by its name. A TRC10 asset name that
 * is not hex is shown as it is.
 */
export function decodeTransfer(tx: Json): DecodedTransfer {
  const contract = firstContract(tx['raw_data']);
  const value = objectAt(objectAt(contract, 'parameter'), 'value');
  const type = String(contract['type'] ?? '');
  const from = addressIn(value['owner_address']);
  const none = { from, to: null, amount: null, contractaddress: null, tokenid: null };
  if (type === 'TransferContract') {
    return {
      ...none,
      type: 'Tron',
      to: addressIn(value['to_address']),
      amount: BigInt(String(value['amount'] ?? 0)),
    };
  }
  if (type === 'TransferAssetContract') {
    const assetHex = String(value['asset_name'] ?? '');
    const tokenid = /^[0-9a-f]+$/i.test(assetHex) ? Buffer.from(assetHex, 'hex').toString('utf8') : assetHex;
    return {
      ...none,
      type: 'TRC10',
      to: addressIn(value['to_address']),
      amount: BigInt(String(value['amount'] ?? 0)),
      tokenid,
    };
  }
  if (type === 'TriggerSmartContract') {
    const data = String(value['data'] ?? '').toLowerCase();
    const contractaddress = addressIn(value['contract_address']);
    const word = (index: number) =>
      data.slice(SELECTOR_CHARS + index * WORD_CHARS, SELECTOR_CHARS + (index + 1) * WORD_CHARS);
    if (data.startsWith(TRC20_TRANSFER_SELECTOR) && data.length >= SELECTOR_CHARS + 2 * WORD_CHARS) {
      return {
        ...none,
        type: 'TRC20',
        to: wordAddress(word(0)),
        amount: BigInt(`0x${word(1)}`),
        contractaddress,
      };
    }
    if (data.startsWith(TRC721_TRANSFER_FROM_SELECTOR) && data.length >= SELECTOR_CHARS + 3 * WORD_CHARS) {
      return {
        ...none,
        type: 'TRC721',
        from: wordAddress(word(0)),
        to: wordAddress(word(1)),
        amount: 1n,
        contractaddress,
        tokenid: BigInt(`0x${word(2)}`).toString(),
      };
    }
    return { ...none, type: 'CONTRACT', contractaddress };
  }
  return { ...none, type: type.replace(/Contract$/, '') || 'UNKNOWN' };
}

/** The contract's result as the node reports it (SUCCESS, REVERT, OUT_OF_ENERGY, ...); PENDING before. */
export function contractStatus(tx: Json): string {
  const ret = tx['ret'];
  const first = Array.isArray(ret) && isObject(ret[0]) ? ret[0]['contractRet'] : undefined;
  return typeof first === 'string' ? first : 'PENDING';
}

/** The 32-byte argument words after the selector; null when the data is not hex. */
function callWords(data: string): string[] | null {
  if (!/^[0-9a-f]*$/.test(data) || data.length < SELECTOR_CHARS) return null;
  const words: string[] = [];
  for (let at = SELECTOR_CHARS; at + WORD_CHARS <= data.length; at += WORD_CHARS) {
    words.push(data.slice(at, at + WORD_CHARS));
  }
  return words;
}

/** The address an ABI word holds: its low 20 bytes, as the TVM reads it (TronWeb writes 0x41 above them). */
export function wordAddress(word: string): string {
  return toBase58Address(`41${word.slice(-40)}`);
}

function wholeNumber(raw: unknown, contractType: string, unit = ''): bigint {
  const text =
    typeof raw === 'number' || typeof raw === 'string' || typeof raw === 'bigint' ? String(raw) : '';
  if (!WHOLE_NUMBER.test(text)) {
    throw new MalformedContractError(`The ${contractType} amount must be a whole number${unit}.`);
  }
  return BigInt(text);
}

/** A TRC10 id travels as the bytes of its decimal text: hex when visible=false, the text itself when true. */
function trc10Id(raw: unknown, visible: boolean): string {
  const text = typeof raw !== 'string' ? '' : visible ? raw : hexText(raw);
  if (!TRC10_ID.test(text)) {
    throw new MalformedContractError('The TransferAssetContract asset_name must be a TRC10 token id.');
  }
  return text;
}

function hexText(hex: string): string {
  return /^(?:[0-9a-fA-F]{2})+$/.test(hex) ? Buffer.from(hex, 'hex').toString('latin1') : '';
}

function addressIn(raw: unknown): string | null {
  return typeof raw === 'string' && isTronAddress(raw) ? toBase58Address(raw) : null;
}

function firstContract(rawData: unknown): Json {
  const contracts = isObject(rawData) ? rawData['contract'] : undefined;
  return Array.isArray(contracts) && isObject(contracts[0]) ? contracts[0] : {};
}

/** `parent[key]` when it is an object; `{}` otherwise, so a malformed body reads as an empty one. */
function objectAt(parent: Json, key: string): Json {
  const child = parent[key];
  return isObject(child) ? child : {};
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
