/**
 * Unsigned EVM transactions as plain objects, their unsigned and signed serializations, and local
 * signing. Pure: nothing here talks to a node.
 */
import {
  type Address,
  getAddress,
  type Hex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem';
import { signTransaction } from 'viem/accounts';
import { EvmInputError } from './errors.ts';
import type { EvmFees } from './fees.ts';
import { checksumAddress, evmKeyFromPrivate } from './keys.ts';

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

/** Largest nonce EIP-2681 allows. */
const MAX_NONCE = 2n ** 64n - 2n;

export function unsignedTransaction(fields: EvmTxFields): UnsignedEvmTransaction {
  return { ...fields, serialized: serializeTransaction(toSerializable(fields)) };
}

/** The same transaction with another nonce (the nonce manager assigns it after building). */
export function withTransactionNonce(tx: EvmTxFields, nonce: number): UnsignedEvmTransaction {
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
  const raw = await signTransaction({ privateKey: `0x${key.privateKey}`, transaction: toSerializable(tx) });
  return { raw, hash: keccak256(raw), from: key.address, nonce: tx.nonce };
}

export function transactionHash(raw: Hex): Hex {
  return keccak256(raw);
}

/** The signer of a signed serialized transaction (legacy, EIP-155, 2930 or 1559). */
export async function recoverSender(raw: Hex): Promise<Address> {
  return getAddress(await recoverTransactionAddress({ serializedTransaction: raw as never }));
}

/** Decoded fields of a serialized transaction, signed or not. */
export function decodeTransaction(raw: Hex) {
  try {
    return parseTransaction(raw);
  } catch {
    throw new EvmInputError('not a serialized EVM transaction');
  }
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
