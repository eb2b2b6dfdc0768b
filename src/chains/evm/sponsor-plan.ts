/**
 * What a sponsored EVM transfer costs: the transfer built from `from` at the chain's current fees (its gas
 * limit estimated, the pre-flight call run), and what `from` must hold for it to go out whatever the
 * block's base fee turns out to be (gas limit × max fee per gas, plus the value of a coin transfer). The
 * quote and the run share it, so the transfer the run sends is the one the quote priced.
 */
import type { SponsoredTransfer } from '../fee-sponsor.ts';
import type { EvmAdapter, EvmTxOverrides } from './adapter.ts';
import type { EvmFees } from './fees.ts';
import { signedSpendReader } from './funds-in-flight.ts';
import { isHex } from './hex.ts';
import type { NonceManager } from './nonce-manager.ts';
import type { UnsignedEvmTransaction } from './transactions.ts';

/** 21000: what a plain payment to an address without code costs, the top-up included. */
export const PAYMENT_GAS = 21_000n;

/** The gas and fees a sponsored transfer goes out with, fixed once (the journal keeps them). */
export interface TransferTerms {
  gas: bigint;
  fees: EvmFees;
}

/** The most a transaction pays per gas under `fees`: what a top-up must cover for every unit of its limit. */
export function maxFeePerGas(fees: EvmFees): bigint {
  return fees.type === 'legacy' ? fees.gasPrice : fees.maxFeePerGas;
}

/** The transaction's fee fields as overrides, so a build takes exactly them. */
export function feeOverrides(fees: EvmFees): EvmTxOverrides {
  return fees.type === 'legacy'
    ? { gasprice: fees.gasPrice }
    : { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

/**
 * The transfer as an unsigned transaction from `from` (its nonce is the node's; the nonce manager gives
 * the real one). Without `terms` the gas is estimated at the chain's current fees; with them it is built
 * with exactly those. Token builds run the call first and refuse one that would revert.
 */
export async function buildSponsoredTransfer(
  adapter: EvmAdapter,
  transfer: SponsoredTransfer,
  terms?: TransferTerms,
): Promise<UnsignedEvmTransaction> {
  const fees = terms?.fees ?? (await adapter.getFeeDefaults());
  const overrides: EvmTxOverrides = {
    ...feeOverrides(fees),
    ...(terms === undefined ? {} : { gas: terms.gas }),
  };
  const units = BigInt(transfer.units);
  if (transfer.contract === null) return adapter.buildTransfer(transfer.from, transfer.to, units, overrides);
  if (transfer.tokenId !== null) {
    return adapter.buildErc721Transfer(
      transfer.from,
      transfer.to,
      transfer.contract,
      BigInt(transfer.tokenId),
      overrides,
    );
  }
  return adapter.buildErc20Transfer(transfer.from, transfer.to, transfer.contract, units, overrides);
}

/** The terms a built transfer carries. */
export function termsOf(tx: UnsignedEvmTransaction): TransferTerms {
  const fees: EvmFees =
    tx.type === 'legacy'
      ? { type: 'legacy', gasPrice: tx.gasPrice }
      : { type: 'eip1559', maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas };
  return { gas: tx.gas, fees };
}

/** What `from` must hold for the transfer to go out: its gas at the most it can cost, and its value. */
export function transferNeeds(tx: UnsignedEvmTransaction): bigint {
  return tx.gas * maxFeePerGas(termsOf(tx).fees) + tx.value;
}

/**
 * The coin `address` has for a new transaction: its balance less the most its signed sends not yet mined
 * can take (the nonce manager's), so a top-up sized on it is not eaten by a send already on its way.
 */
export async function spendableCoin(
  adapter: EvmAdapter,
  nonces: NonceManager,
  address: string,
): Promise<bigint> {
  const key = { chain: adapter.chain, network: adapter.network, address };
  const [latest, balance, pending, spendOfSigned] = await Promise.all([
    adapter.getTransactionCount(address, 'latest'),
    adapter.getBalance(address),
    nonces.pending(key),
    signedSpendReader(),
  ]);
  const inFlight = pending.reduce(
    (sum, row) =>
      row.state === 'sent' && row.rawTx !== null && isHex(row.rawTx) && row.nonce >= latest
        ? sum + spendOfSigned(row.rawTx).coin
        : sum,
    0n,
  );
  return balance - inFlight;
}

/** The top-up that makes `held` enough for `needs`; 0 when it already is. */
export function topUpFor(needs: bigint, held: bigint): bigint {
  return needs > held ? needs - held : 0n;
}
