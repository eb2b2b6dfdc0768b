/**
 * What an EVM transaction moves, named as its chain names it: a token transfer call (the token's parties,
 * units and decimals), or otherwise the coin it carries. Read from a transaction the node returned or
 * from a signed serialized one; the token's decimals come from the caller, which asks the node.
 */
import type { Address } from 'viem';
import { assetAmount } from '../amount.ts';
import type { ChainName } from '../types.ts';
import { evmTransferTypes } from './chains.ts';
import { isHex } from './hex.ts';
import { checksumAddress, isEvmAddress } from './keys.ts';
import { decodeTransaction, recoverSender } from './transactions.ts';
import { decodeTransferCall } from './transfer-calls.ts';
import { WEI_DECIMALS } from './units.ts';

/** The fields of a transaction that say what it moves; addresses in EIP-55 form. */
export interface TransactionFields {
  from: Address;
  /** Null for a contract creation. */
  to: Address | null;
  /** Wei. */
  value: bigint;
  input: string;
}

/** What a transaction moves; addresses in EIP-55 form. */
export interface MovedAsset {
  kind: 'native' | 'fungible' | 'nft' | 'other';
  /** The chain's name for it: ETH, BNB, ERC20, BEP20, ERC721, BEP721, ... */
  type: string;
  from: Address;
  to: Address | null;
  contract: Address | null;
  units: bigint;
  /** Null when the token contract does not say (no decimals()). */
  decimals: number | null;
  tokenId: bigint | null;
}

/** An ERC20 contract's decimals; null when it does not answer decimals(). */
export type Erc20DecimalsOrNull = (contract: Address) => Promise<number | null>;

/** A node's ERC20 decimals: a contract that does not answer decimals() moved units of unknown size. */
export function erc20DecimalsOrNull(node: {
  getErc20Decimals(contract: string): Promise<number>;
}): Erc20DecimalsOrNull {
  return (contract) => node.getErc20Decimals(contract).catch(() => null);
}

/** Chaingateway's history names a native coin transfer `default`, on every EVM chain. */
export const HISTORY_NATIVE_TYPE = 'default';

/** An address field of a node object in EIP-55 form; null when absent (a contract creation's `to`). */
export function optionalAddress(value: unknown): Address | null {
  return typeof value === 'string' && isEvmAddress(value) ? checksumAddress(value) : null;
}

/** The fields of a transaction object as the node returns it (eth_getTransactionByHash). */
export function nodeTransactionFields(tx: Record<string, unknown>): TransactionFields {
  return {
    from: checksumAddress(String(tx['from'])),
    to: optionalAddress(tx['to']),
    value: BigInt(String(tx['value'] ?? '0x0')),
    input: String(tx['input'] ?? '0x'),
  };
}

/** The signer and payload of a signed serialized transaction; null when it is not one. */
export async function signedTransactionFields(rawtx: string): Promise<TransactionFields | null> {
  if (!isHex(rawtx)) return null;
  try {
    const tx = await decodeTransaction(rawtx);
    const from = await recoverSender(rawtx);
    return { from, to: optionalAddress(tx.to), value: tx.value ?? 0n, input: tx.data ?? '0x' };
  } catch {
    return null;
  }
}

/**
 * What `tx` moves on `chain`: a token transfer call by its input, or otherwise the coin it carries. A
 * call that is not a token transfer is `other` and still reports the coin it carries.
 */
export async function movedAsset(
  chain: ChainName,
  tx: TransactionFields,
  erc20Decimals: Erc20DecimalsOrNull,
): Promise<MovedAsset> {
  const types = evmTransferTypes(chain);
  const call = tx.to === null ? null : decodeTransferCall(tx.input);
  if (tx.to !== null && call?.standard === 'fungible') {
    return {
      kind: 'fungible',
      type: types.fungible,
      from: tx.from,
      to: call.to,
      contract: tx.to,
      units: call.units,
      decimals: await erc20Decimals(tx.to),
      tokenId: null,
    };
  }
  if (tx.to !== null && call?.standard === 'nft') {
    return {
      kind: 'nft',
      type: types.nft,
      from: call.from,
      to: call.to,
      contract: tx.to,
      units: 1n,
      decimals: 0,
      tokenId: call.tokenId,
    };
  }
  return {
    kind: isPayment(tx.input) ? 'native' : 'other',
    type: types.native,
    from: tx.from,
    to: tx.to,
    contract: null,
    units: tx.value,
    decimals: WEI_DECIMALS,
    tokenId: null,
  };
}

/** Plain input (or none) carries no call: the transaction pays coin. */
function isPayment(input: string): boolean {
  return input === '0x' || input === '';
}

/** The amount a lookup shows: every decimal of the asset, raw units when a token does not say. */
export function lookupAmount(asset: MovedAsset): string {
  const decimals = asset.decimals ?? 0;
  return assetAmount(asset.units, decimals);
}

/** The history's type: a coin transfer is `default`, a token the chain's name for it, another call `raw`. */
export function historyType(asset: Pick<MovedAsset, 'kind' | 'type'>): string {
  if (asset.kind === 'other') return 'raw';
  return asset.kind === 'native' ? HISTORY_NATIVE_TYPE : asset.type;
}
