/**
 * What a Solana transaction costs: 5,000 lamports per signature, plus a priority fee when the network
 * is busy (compute-unit price × compute-unit limit, in micro-lamports). The price is what transactions
 * writing the same accounts paid lately; none is added while they paid nothing.
 */
import type { Instruction } from '@solana/kit';
import type { SolanaKit } from './kit.ts';

export const LAMPORTS_PER_SIGNATURE = 5000n;
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MICRO_LAMPORTS = 1_000_000n;
/** Compute units the two compute-budget instructions themselves cost. */
const BUDGET_INSTRUCTIONS_UNITS = 300n;

export interface PriorityFee {
  /** Micro-lamports per compute unit. */
  price: bigint;
  /** Compute units the transaction may use. */
  limit: bigint;
}

/**
 * The price to pay from the fees of recent slots: the 75th percentile of those that paid one, so a
 * send lands ahead of most of the traffic on its accounts; 0 while fewer than a quarter of slots paid.
 */
export function priorityPrice(recent: readonly bigint[]): bigint {
  if (recent.length === 0) return 0n;
  const sorted = [...recent].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor((sorted.length * 3) / 4)] ?? 0n;
}

/** The limit for what simulation measured: a tenth more, since state can change before it lands. */
export function unitLimit(simulated: bigint): bigint {
  return ((simulated + BUDGET_INSTRUCTIONS_UNITS) * 11n) / 10n;
}

/** Lamports a transaction with `signatures` signatures and this priority fee costs. */
export function transactionFee(signatures: number, priority: PriorityFee | null): bigint {
  const base = LAMPORTS_PER_SIGNATURE * BigInt(signatures);
  if (priority === null) return base;
  return base + (priority.price * priority.limit + MICRO_LAMPORTS - 1n) / MICRO_LAMPORTS;
}

/** SetComputeUnitLimit and SetComputeUnitPrice, as the Compute Budget program reads them. */
export function computeBudgetInstructions(kit: SolanaKit, priority: PriorityFee): Instruction[] {
  const limit = new Uint8Array(5);
  limit[0] = 2;
  new DataView(limit.buffer).setUint32(1, Number(priority.limit), true);
  const price = new Uint8Array(9);
  price[0] = 3;
  new DataView(price.buffer).setBigUint64(1, priority.price, true);
  const programAddress = kit.address(COMPUTE_BUDGET_PROGRAM);
  return [
    { programAddress, data: limit },
    { programAddress, data: price },
  ];
}
