// Fee estimates (sat/vB per confirmation target), as /fee-estimates, /api/v1/fees/recommended and
// estimatesmartfee report them; a test sets them.
import { Btc, type Json } from './json.ts';

export type FeeEstimates = Record<string, number>;

/** Esplora's targets: 1 to 25 blocks, then 144, 504 and 1008. */
const TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

export function defaultFeeEstimates(): FeeEstimates {
  const out: FeeEstimates = {};
  for (const t of TARGETS)
    out[String(t)] = t <= 1 ? 10 : t <= 2 ? 8 : t <= 3 ? 6 : t <= 6 ? 4 : t <= 25 ? 2 : 1;
  return out;
}

export function checkFeeEstimates(estimates: FeeEstimates): FeeEstimates {
  const out: FeeEstimates = {};
  for (const [key, value] of Object.entries(estimates)) {
    if (!/^[1-9]\d*$/.test(key)) throw new Error(`a fee estimate's target is a block count, not ${key}`);
    if (!Number.isFinite(value) || value < 0) throw new Error(`a fee estimate is sat/vB >= 0, not ${value}`);
    out[key] = value;
  }
  return out;
}

/** The estimate for the smallest target at or above `blocks` (the largest target's past the end). */
export function estimateFor(
  estimates: FeeEstimates,
  blocks: number,
): { satPerVb: number; blocks: number } | null {
  const targets = Object.keys(estimates)
    .map(Number)
    .sort((a, b) => a - b);
  if (targets.length === 0) return null;
  const target = targets.find((t) => t >= blocks) ?? (targets[targets.length - 1] as number);
  return { satPerVb: estimates[String(target)] as number, blocks: target };
}

/** estimatesmartfee: BTC/kvB (sat/vB × 1000 sats, never below the 1 sat/vB relay floor). */
export function smartFee(estimates: FeeEstimates, blocks: number): Json {
  const found = estimateFor(estimates, blocks);
  if (!found) return { errors: ['Insufficient data or no feerate found'], blocks: 0 };
  const satsPerKvB = BigInt(Math.max(1000, Math.round(found.satPerVb * 1000)));
  return { feerate: Btc.of(satsPerKvB), blocks: found.blocks };
}

/** mempool.space's recommended fees: whole sat/vB. */
export function recommendedFees(estimates: FeeEstimates): Json {
  const at = (blocks: number) => Math.max(1, Math.ceil(estimateFor(estimates, blocks)?.satPerVb ?? 1));
  return {
    fastestFee: at(1),
    halfHourFee: at(3),
    hourFee: at(6),
    economyFee: Math.min(at(144), at(6)),
    minimumFee: 1,
  };
}
