/**
 * Which coins pay a payment, and what comes back as change. All inputs are P2WPKH (the gateway's
 * addresses); sizes are tx-size.ts's worst cases, so the fee never falls below the rate once signed.
 *
 * First Bitcoin Core's branch and bound: a set of coins whose effective values (value minus the fee of
 * spending it) land in [target, target + cost of change], which needs no change output. When none is
 * found, the largest coins are taken until the payment and fee are covered, with change.
 */
import { atLeastMinRelay, feeFor } from './fee-rate.ts';
import { dustThreshold, inputVbytes, outputVbytes, transactionVsize } from './tx-size.ts';

export interface Coin {
  txid: string;
  vout: number;
  value: bigint;
  address: string;
  script: Uint8Array;
  /**
   * An unconfirmed coin's extra fee: what its unconfirmed ancestors lack to reach the rate, paid by the
   * transaction spending it (package-fee.ts). Absent for a confirmed coin.
   */
  ancestorFee?: bigint;
}

export interface Payment {
  script: Uint8Array;
  value: bigint;
}

export interface SelectionRequest {
  coins: Coin[];
  payment: Payment;
  changeScript: Uint8Array;
  /** sat per 1000 vB; raised to MIN_RELAY_FEE_RATE when below. */
  feeRate: bigint;
  /** The payment pays the fee: it receives `payment.value` minus the fee. */
  subtractFee: boolean;
}

export interface Selection {
  inputs: Coin[];
  /** The payment first, the change last when there is change. */
  outputs: Payment[];
  /** inputs − outputs, at least feeFor(vsize) at the rate plus the inputs' ancestorFee. */
  fee: bigint;
  /** The signed transaction's vsize with worst-case signatures (tx-size.ts); once signed it may be smaller. */
  vsize: number;
  /** The change output's value; 0n when there is none. */
  change: bigint;
}

export class InsufficientFundsError extends Error {
  override readonly name = 'InsufficientFundsError';
  /** needed − available: what is lacking, the fee included. */
  readonly missing: bigint;
  /** The value of the coins worth spending at the fee rate (or of all coins, when the payment pays the fee). */
  readonly available: bigint;
  /** The payment plus the fee of spending those coins (the payment alone when it pays the fee). */
  readonly needed: bigint;

  constructor(available: bigint, needed: bigint) {
    super(`insufficient funds: ${needed} sat needed, ${available} sat available`);
    this.missing = needed - available;
    this.available = available;
    this.needed = needed;
  }
}

export class PaymentBelowDustError extends Error {
  override readonly name = 'PaymentBelowDustError';
  readonly threshold: bigint;
  readonly amount: bigint;

  constructor(amount: bigint, threshold: bigint) {
    super(`the payment of ${amount} sat is below the dust threshold of ${threshold} sat`);
    this.threshold = threshold;
    this.amount = amount;
  }
}

/** How many branches branch and bound may visit before it gives up (Bitcoin Core's TOTAL_TRIES). */
export const BNB_MAX_TRIES = 100_000;

interface Candidate {
  coin: Coin;
  effective: bigint;
}

export function selectCoins(request: SelectionRequest): Selection {
  const rate = atLeastMinRelay(request.feeRate);
  const { payment } = request;
  const threshold = dustThreshold(payment.script);
  if (payment.value < threshold) throw new PaymentBelowDustError(payment.value, threshold);
  return request.subtractFee ? payFeeFromPayment(request, rate) : payFeeOnTop(request, rate);
}

/**
 * The coins, largest effective value first (ties keep their given order), whose value covers the fee
 * of spending them at `rate`.
 */
function candidatesOf(coins: readonly Coin[], rate: bigint): Candidate[] {
  const inputFee = feeFor(inputVbytes, rate);
  return coins
    .map((coin) => ({ coin, effective: coin.value - inputFee - (coin.ancestorFee ?? 0n) }))
    .filter((candidate) => candidate.effective > 0n)
    .sort((a, b) => (a.effective === b.effective ? 0 : a.effective > b.effective ? -1 : 1));
}

function payFeeOnTop(request: SelectionRequest, rate: bigint): Selection {
  const { payment, changeScript } = request;
  const candidates = candidatesOf(request.coins, rate);
  const paymentOnly = [payment.script];
  // Everything but the inputs (with the segwit marker); fees rounded up per part are never less than the
  // fee of the whole, so a match pays at least the rate.
  const target = payment.value + feeFor(transactionVsize(1, paymentOnly) - inputVbytes, rate);
  const costOfChange = feeFor(outputVbytes(changeScript), rate) + feeFor(inputVbytes, rate);
  const matched = branchAndBound(
    candidates.map((candidate) => candidate.effective),
    target,
    costOfChange,
  );
  if (matched !== null) {
    const inputs = matched.map((index) => candidates[index]!.coin);
    const exact = withoutChange(inputs, payment, rate);
    if (exact !== null) return exact;
  }
  return largestFirst(candidates, request, rate);
}

/** What the inputs' unconfirmed ancestors lack, paid on top of the transaction's own fee. */
const ancestorFees = (inputs: readonly Coin[]) =>
  inputs.reduce((total, coin) => total + (coin.ancestorFee ?? 0n), 0n);

/** Adds the largest coins until the payment and fee are covered; change below dust goes to the fee. */
function largestFirst(candidates: readonly Candidate[], request: SelectionRequest, rate: bigint): Selection {
  const { payment, changeScript } = request;
  const inputs: Coin[] = [];
  let total = 0n;
  for (const { coin } of candidates) {
    inputs.push(coin);
    total += coin.value;
    const feeAlone = feeFor(transactionVsize(inputs.length, [payment.script]), rate) + ancestorFees(inputs);
    if (total < payment.value + feeAlone) continue;
    const vsize = transactionVsize(inputs.length, [payment.script, changeScript]);
    const fee = feeFor(vsize, rate) + ancestorFees(inputs);
    const change = total - payment.value - fee;
    if (change >= dustThreshold(changeScript)) {
      const outputs = [{ ...payment }, { script: changeScript, value: change }];
      return { inputs, outputs, fee, vsize, change };
    }
    return {
      inputs,
      outputs: [{ ...payment }],
      fee: total - payment.value,
      vsize: transactionVsize(inputs.length, [payment.script]),
      change: 0n,
    };
  }
  const needed =
    payment.value +
    feeFor(transactionVsize(Math.max(inputs.length, 1), [payment.script]), rate) +
    ancestorFees(inputs);
  throw new InsufficientFundsError(total, needed);
}

/** The selection paying with these inputs and no change, when they cover the payment and the fee. */
function withoutChange(inputs: Coin[], payment: Payment, rate: bigint): Selection | null {
  const total = inputs.reduce((sum, coin) => sum + coin.value, 0n);
  const vsize = transactionVsize(inputs.length, [payment.script]);
  if (total - payment.value < feeFor(vsize, rate) + ancestorFees(inputs)) return null;
  return { inputs, outputs: [{ ...payment }], fee: total - payment.value, vsize, change: 0n };
}

/**
 * "Send max" and every payment that pays its own fee: the largest coins until their value reaches the
 * payment's. Coins not worth spending at the rate come last and are only taken when the others do not
 * reach the amount, so an amount equal to the whole balance spends every coin.
 */
function payFeeFromPayment(request: SelectionRequest, rate: bigint): Selection {
  const { payment, changeScript } = request;
  const worth = candidatesOf(request.coins, rate).map((candidate) => candidate.coin);
  const worthSpending = new Set(worth);
  const ordered = [
    ...worth,
    ...request.coins
      .filter((coin) => !worthSpending.has(coin))
      .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1)),
  ];
  const inputs: Coin[] = [];
  let total = 0n;
  for (const coin of ordered) {
    if (total >= payment.value) break;
    inputs.push(coin);
    total += coin.value;
  }
  if (total < payment.value) throw new InsufficientFundsError(total, payment.value);

  const excess = total - payment.value;
  const threshold = dustThreshold(payment.script);
  if (excess >= dustThreshold(changeScript)) {
    const vsize = transactionVsize(inputs.length, [payment.script, changeScript]);
    const fee = feeFor(vsize, rate) + ancestorFees(inputs);
    const paid = payment.value - fee;
    if (paid < threshold) throw new PaymentBelowDustError(paid, threshold);
    return {
      inputs,
      outputs: [
        { script: payment.script, value: paid },
        { script: changeScript, value: excess },
      ],
      fee,
      vsize,
      change: excess,
    };
  }
  const vsize = transactionVsize(inputs.length, [payment.script]);
  const paid = payment.value - feeFor(vsize, rate) - ancestorFees(inputs);
  if (paid < threshold) throw new PaymentBelowDustError(paid, threshold);
  return { inputs, outputs: [{ script: payment.script, value: paid }], fee: total - paid, vsize, change: 0n };
}

/**
 * Bitcoin Core's branch and bound over effective values sorted largest first: depth-first, each value in
 * or out, for a set whose sum lands in [target, target + costOfChange]; the least excess wins (an exact
 * match ends the search). Returns the chosen indexes in ascending order, or null when no set is found
 * within BNB_MAX_TRIES branches.
 */
export function branchAndBound(
  values: readonly bigint[],
  target: bigint,
  costOfChange: bigint,
): number[] | null {
  const upper = target + costOfChange;
  // remaining[i]: the sum of values[i..], what the branch can still add.
  const remaining: bigint[] = new Array<bigint>(values.length + 1).fill(0n);
  for (let i = values.length - 1; i >= 0; i--) remaining[i] = remaining[i + 1]! + values[i]!;
  if (remaining[0]! < target) return null;

  const chosen: boolean[] = new Array<boolean>(values.length).fill(false);
  let best: number[] | null = null;
  let bestExcess = 0n;
  let sum = 0n;
  let depth = 0;
  for (let tries = 0; tries < BNB_MAX_TRIES; tries++) {
    let backtrack = false;
    if (sum + remaining[depth]! < target || sum > upper) {
      backtrack = true;
    } else if (sum >= target) {
      if (best === null || sum - target < bestExcess) {
        best = chosen.flatMap((isChosen, index) => (isChosen ? [index] : []));
        bestExcess = sum - target;
        if (bestExcess === 0n) break;
      }
      backtrack = true;
    }

    if (backtrack) {
      // Undo the deepest inclusion and try the branch without it.
      let last = depth - 1;
      while (last >= 0 && !chosen[last]) last--;
      if (last < 0) break;
      chosen[last] = false;
      sum -= values[last]!;
      depth = last + 1;
    } else {
      const value = values[depth]!;
      // Leaving out a value and then taking an equal one finds the same sums: skip such branches.
      const previousLeftOut = depth > 0 && !chosen[depth - 1] && values[depth - 1] === value;
      if (!previousLeftOut) {
        chosen[depth] = true;
        sum += value;
      }
      depth++;
    }
  }
  return best;
}
