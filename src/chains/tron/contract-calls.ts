/**
 * The token transfer calls, in one place for the builder (function selector + parameter) and for the
 * fee pre-flight (call data), so both always describe the same call.
 */
import { addressWord, functionSelector, uintWord } from './abi.ts';
import { TronInputError } from './errors.ts';
import type { ContractCallArgs } from './fee-estimator.ts';

export const TRC20_TRANSFER = 'transfer(address,uint256)';
export const TRC721_TRANSFER_FROM = 'transferFrom(address,address,uint256)';

export function trc20TransferParameter(to: string, units: bigint): string {
  if (typeof units !== 'bigint' || units <= 0n) throw new TronInputError('amount must be greater than zero');
  return addressWord(to) + uintWord(units);
}

export function trc721TransferParameter(from: string, to: string, tokenId: bigint): string {
  if (typeof tokenId !== 'bigint' || tokenId < 0n) throw new TronInputError('token id must not be negative');
  return addressWord(from) + addressWord(to) + uintWord(tokenId);
}

/** A TRC20 transfer as call arguments, for estimating before building. */
export function trc20TransferCall(
  to: string,
  contract: string,
  units: bigint,
  feeLimitSun?: bigint,
): ContractCallArgs {
  const data = functionSelector(TRC20_TRANSFER) + trc20TransferParameter(to, units);
  return feeLimitSun === undefined ? { contract, data } : { contract, data, feeLimitSun };
}

/** A TRC721 transferFrom(from, to, tokenId) as call arguments, for estimating before building. */
export function trc721TransferCall(
  from: string,
  to: string,
  contract: string,
  tokenId: bigint,
  feeLimitSun?: bigint,
): ContractCallArgs {
  const data = functionSelector(TRC721_TRANSFER_FROM) + trc721TransferParameter(from, to, tokenId);
  return feeLimitSun === undefined ? { contract, data } : { contract, data, feeLimitSun };
}
