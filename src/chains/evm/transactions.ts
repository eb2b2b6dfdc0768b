/**
 * Unsigned EVM transactions as plain objects, their unsigned and signed serializations, and local
 * signing. Pure: nothing here talks to a node.
 */
import type { Address, Hex, TransactionSerializable, TransactionSerialized } from 'viem';
import { EvmInputError } from './errors.ts';
import type { EvmFees } from './fees.ts';
import { keccak256 } from './hex.ts';
import { checksumAddress, evmKeyFromPrivate } from './keys.ts';
import { viem, viemAccounts, viemUtils } from './viem.ts';

interface EvmTxCommon {
  chainId: number;
  /** The sender the transaction was built for; signing checks the key belongs to it. */
  from: Address;
  nonce: number;
  to: Address;
  value: bigint;
  data: Hex;
  gas: bigint;
}

export type EvmTxFields = EvmTxCommon & EvmFees;

/** A transaction ready to sign, with its unsigned serialization (what a wallet or HSM signs offline). */
export type UnsignedEvmTransaction = EvmTxFields & { serialized: Hex };

export interface SignedEvmTransaction {
  /** Signed serialization, what eth_sendRawTransaction takes. */
  raw: Hex;
  /** keccak256 of `raw`: the transaction hash the node will report. */
  hash: Hex;
  from: Address;
  nonce: number;
}

/**
 * A quantity as both ethers v6 and viem sign it unchanged from JSON: wei as a decimal string (exact
 * beyond 2^53), and zero as the number 0, because viem signs the string "0" as a non-canonical 0x00
 * that nodes refuse to decode.
 */
export type ClientQuantity = string | 0;

interface ClientTxCommon {
  chainId: number;
  nonce: number;
  /** ethers' wallet.signTransaction checks it is the wallet's address, then drops it; viem ignores it. */
  from: Address;
  to: Address;
  value: ClientQuantity;
  data: Hex;
  /** The gas limit twice: viem reads `gas`, ethers reads `gasLimit`. */
  gas: ClientQuantity;
  gasLimit: ClientQuantity;
}

/**
 * A transaction as ethers v6 (`wallet.signTransaction`) and viem (`account.signTransaction`) take it
 * straight from JSON. A legacy one says `type: 0`, without which ethers would sign an EIP-2930
 * transaction; an EIP-1559 one has no `type`, which both infer from its fee fields (viem would read a
 * numeric 2 as legacy, ethers refuses the name "eip1559").
 */
export type ClientTransaction =
  | (ClientTxCommon & { type: 0; gasPrice: ClientQuantity })
  | (ClientTxCommon & { maxFeePerGas: ClientQuantity; maxPriorityFeePerGas: ClientQuantity });

/** Largest nonce EIP-2681 allows. */
const MAX_NONCE = 2n ** 64n - 2n;

export async function unsignedTransaction(fields: EvmTxFields): Promise<UnsignedEvmTransaction> {
  const { serializeTransaction } = await viemUtils();
  return { ...fields, serialized: serializeTransaction(toSerializable(fields)) };
}

/** The same transaction with another nonce (the nonce manager assigns it after building). */
export async function withTransactionNonce(tx: EvmTxFields, nonce: number): Promise<UnsignedEvmTransaction> {
  const { serialized: _, ...fields } = tx as UnsignedEvmTransaction;
  return unsignedTransaction({ ...fields, nonce: checkNonce(nonce) });
}

/** Signs locally. The key must belong to `tx.from`; it never leaves this function or shows in an error. */
export async function signEvmTransaction(
  tx: EvmTxFields,
  privateKeyHex: string,
): Promise<SignedEvmTransaction> {
  const key = evmKeyFromPrivate(privateKeyHex);
  if (key.address !== checksumAddress(tx.from)) {
    throw new EvmInputError(`private key does not belong to ${checksumAddress(tx.from)}`);
  }
  const { signTransaction } = await viemAccounts();
  const raw = await signTransaction({ privateKey: `0x${key.privateKey}`, transaction: toSerializable(tx) });
  return { raw, hash: keccak256(raw), from: key.address, nonce: tx.nonce };
}

/** The transaction to hand a client library for signing; it signs into `serialized`. */
export function clientTransaction(tx: EvmTxFields): ClientTransaction {
  const common: ClientTxCommon = {
    chainId: tx.chainId,
    nonce: tx.nonce,
    from: checksumAddress(tx.from),
    to: checksumAddress(tx.to),
    value: clientQuantity(tx.value),
    data: tx.data,
    gas: clientQuantity(tx.gas),
    gasLimit: clientQuantity(tx.gas),
  };
  if (tx.type === 'legacy') return { ...common, type: 0, gasPrice: clientQuantity(tx.gasPrice) };
  return {
    ...common,
    maxFeePerGas: clientQuantity(tx.maxFeePerGas),
    maxPriorityFeePerGas: clientQuantity(tx.maxPriorityFeePerGas),
  };
}

function clientQuantity(value: bigint): ClientQuantity {
  return value === 0n ? 0 : value.toString();
}

export function transactionHash(raw: Hex): Hex {
  return keccak256(raw);
}

/** The signer of a signed serialized transaction (legacy, EIP-155, 2930 or 1559). */
export async function recoverSender(raw: Hex): Promise<Address> {
  if (!isSerializedTransaction(raw, await transactionDecoder())) {
    throw new EvmInputError('not a serialized EVM transaction');
  }
  const { recoverTransactionAddress } = await viem();
  return checksumAddress(await recoverTransactionAddress({ serializedTransaction: raw }));
}

/** viem types a legacy serialization with a brand that only a successful parse can confer. */
function isSerializedTransaction(raw: Hex, decode: (raw: Hex) => unknown): raw is TransactionSerialized {
  try {
    decode(raw);
    return true;
  } catch {
    return false;
  }
}

/** Decoded fields of a serialized transaction, signed or not. */
export async function decodeTransaction(raw: Hex) {
  return (await transactionDecoder())(raw);
}

/**
 * `decodeTransaction` for synchronous code (a check inside a store transaction), once viem's decoder is
 * loaded: callers await this where they are still asynchronous.
 */
export async function transactionDecoder() {
  const { parseTransaction } = await viemUtils();
  return (raw: Hex) => {
    try {
      return parseTransaction(raw);
    } catch {
      throw new EvmInputError('not a serialized EVM transaction');
    }
  };
}

export function checkNonce(nonce: number | bigint): number {
  const value = typeof nonce === 'bigint' ? nonce : Number.isInteger(nonce) ? BigInt(nonce) : -1n;
  if (value < 0n || value > MAX_NONCE || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new EvmInputError('nonce must be a whole number from 0');
  }
  return Number(value);
}

function toSerializable(tx: EvmTxFields): TransactionSerializable {
  const common = {
    chainId: tx.chainId,
    nonce: tx.nonce,
    to: tx.to,
    value: tx.value,
    data: tx.data,
    gas: tx.gas,
  };
  return tx.type === 'legacy'
    ? { ...common, type: 'legacy', gasPrice: tx.gasPrice }
    : {
        ...common,
        type: 'eip1559',
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        accessList: [],
      };
}
