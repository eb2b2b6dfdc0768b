// Wallet.createTransactionCapsule + setTransaction: an unsigned transaction referencing the
// solidified block, expiring 60 s after the head block, stamped with the wall clock.
import { hexToBytes } from '@noble/hashes/utils.js';
import type { TronChain } from './chain.ts';
import type { ContractValue } from './contract-types.ts';
import { emptyRaw, newContract, type Transaction } from './transaction.ts';

export const TRANSACTION_DEFAULT_EXPIRATION_MS = 60_000n;

export interface BuildOptions {
  feeLimit?: bigint;
  /** Memo (raw_data.data). */
  data?: Uint8Array;
  permissionId?: number;
  /** Reference the head instead of the solidified block (what TronWeb's local builder does). */
  referenceHead?: boolean;
  clock?: () => number;
}

export function buildTransaction(
  chain: TronChain,
  type: string,
  value: ContractValue,
  opts: BuildOptions = {},
): Transaction {
  const ref = opts.referenceHead ? chain.head : chain.solidBlock;
  const id = hexToBytes(ref.id);
  const raw = emptyRaw();
  raw.refBlockBytes = id.slice(6, 8);
  raw.refBlockHash = id.slice(8, 16);
  raw.expiration = chain.headTime + TRANSACTION_DEFAULT_EXPIRATION_MS;
  raw.timestamp = BigInt((opts.clock ?? Date.now)());
  raw.contracts = [newContract(type, value, opts.permissionId ?? 0)];
  if (opts.feeLimit) raw.feeLimit = opts.feeLimit;
  if (opts.data) raw.data = opts.data;
  return { raw, signatures: [], ret: [] };
}
