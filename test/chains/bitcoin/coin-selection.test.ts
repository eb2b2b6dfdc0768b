import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outputScript } from '../../../src/chains/bitcoin/address.ts';
import {
  branchAndBound,
  type Coin,
  InsufficientFundsError,
  PaymentBelowDustError,
  type Selection,
  type SelectionRequest,
  selectCoins,
} from '../../../src/chains/bitcoin/coin-selection.ts';
import { atLeastMinRelay, feeFor } from '../../../src/chains/bitcoin/fee-rate.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import {
  dustThreshold,
  inputVbytes,
  outputVbytes,
  transactionVsize,
} from '../../../src/chains/bitcoin/tx-size.ts';

const { regtest } = BITCOIN_NETWORKS;
const OURS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const OUR_SCRIPT = outputScript(OURS, regtest);
const CHANGE = outputScript('bcrt1qcr8te4kr609gcawutmrza0j4xv80jy8zeqchgx', regtest);
const RECIPIENTS = [
  outputScript('bcrt1qnjg0jd8228aq7egyzacy8cys3knf9xvr3v5hfj', regtest), // P2WPKH
  outputScript('mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r', regtest), // P2PKH
  Uint8Array.from(Buffer.from(`5120${'79'.repeat(32)}`, 'hex')), // P2TR
];

function coin(value: bigint, index: number): Coin {
  return {
    txid: index.toString(16).padStart(64, '0'),
    vout: index % 3,
    value,
    address: OURS,
    script: OUR_SCRIPT,
  };
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);

function request(values: bigint[], amount: bigint, feeRate = 1000n, subtractFee = false): SelectionRequest {
  return {
    coins: values.map(coin),
    payment: { script: RECIPIENTS[0]!, value: amount },
    changeScript: CHANGE,
    feeRate,
    subtractFee,
  };
}

/** What every selection must be, whatever coins and payment it was made of. */
function expectSound(selection: Selection, req: SelectionRequest): void {
  const rate = atLeastMinRelay(req.feeRate);
  const inputs = sum(selection.inputs.map((c) => c.value));
  const outputs = sum(selection.outputs.map((o) => o.value));
  expect(inputs - outputs).toBe(selection.fee);
  expect(selection.vsize).toBe(
    transactionVsize(
      selection.inputs.length,
      selection.outputs.map((o) => o.script),
    ),
  );
  expect(selection.fee).toBeGreaterThanOrEqual(feeFor(selection.vsize, rate));
  for (const output of selection.outputs)
    expect(output.value).toBeGreaterThanOrEqual(dustThreshold(output.script));
  expect(new Set(selection.inputs).size).toBe(selection.inputs.length);
  for (const input of selection.inputs) expect(req.coins).toContain(input);
  const [payment, change] = selection.outputs;
  expect(payment!.script).toBe(req.payment.script);
  if (req.subtractFee) expect(payment!.value).toBeLessThanOrEqual(req.payment.value);
  else expect(payment!.value).toBe(req.payment.value);
  expect(selection.outputs.length).toBeLessThanOrEqual(2);
  expect(selection.change).toBe(change?.value ?? 0n);
  if (change !== undefined) expect(change.script).toBe(req.changeScript);
}

/** The branch and bound search selectCoins makes, rebuilt from the rules. */
function bnbFinds(req: SelectionRequest): boolean {
  const rate = atLeastMinRelay(req.feeRate);
  const inputFee = feeFor(inputVbytes, rate);
  const effective = req.coins
    .map((c) => c.value - inputFee)
    .filter((v) => v > 0n)
    .sort((a, b) => (a === b ? 0 : a > b ? -1 : 1));
  const target = req.payment.value + feeFor(transactionVsize(1, [req.payment.script]) - inputVbytes, rate);
  const costOfChange = feeFor(outputVbytes(req.changeScript), rate) + inputFee;
  return branchAndBound(effective, target, costOfChange) !== null;
}

const arbitraryRequest = fc.record({
  values: fc.array(fc.bigInt({ min: 1n, max: 50_000_000n }), { maxLength: 25 }),
  amount: fc.bigInt({ min: 1n, max: 200_000_000n }),
  feeRate: fc.bigInt({ min: 0n, max: 300_000n }),
  subtractFee: fc.boolean(),
  recipient: fc.constantFrom(...RECIPIENTS),
});

describe('selectCoins', () => {
  it('always balances, pays at least the rate, makes no dust and is deterministic (property)', () => {
    fc.assert(
      fc.property(arbitraryRequest, ({ values, amount, feeRate, subtractFee, recipient }) => {
        const req = {
          ...request(values, amount, feeRate, subtractFee),
          payment: { script: recipient, value: amount },
        };
        let selection: Selection;
        try {
          selection = selectCoins(req);
        } catch (error) {
          if (error instanceof InsufficientFundsError) {
            expect(error.missing).toBe(error.needed - error.available);
            expect(error.missing).toBeGreaterThan(0n);
            return;
          }
          if (error instanceof PaymentBelowDustError) {
            expect(error.amount).toBeLessThan(error.threshold);
            return;
          }
          throw error;
        }
        expectSound(selection, req);
        expect(selectCoins(req)).toEqual(selection);
        if (!subtractFee && bnbFinds(req)) expect(selection.change).toBe(0n);
      }),
      { numRuns: 400 },
    );
  });

  it('holds the same near the dust thresholds, with small coins and amounts (property)', () => {
    const small = fc.record({
      values: fc.array(fc.bigInt({ min: 1n, max: 3_000n }), { maxLength: 12 }),
      amount: fc.bigInt({ min: 250n, max: 12_000n }),
      feeRate: fc.bigInt({ min: 1000n, max: 5_000n }),
      subtractFee: fc.boolean(),
    });
    fc.assert(
      fc.property(small, ({ values, amount, feeRate, subtractFee }) => {
        const req = request(values, amount, feeRate, subtractFee);
        try {
          expectSound(selectCoins(req), req);
        } catch (error) {
          if (!(error instanceof InsufficientFundsError || error instanceof PaymentBelowDustError))
            throw error;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('finds a changeless match where one exists (property: many small coins near the target)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1_000n, max: 100_000n }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (values, picks) => {
          // A payment that a subset pays exactly at 1 sat/vB: its effective values minus the fixed part's fee.
          const chosen = values.filter((_, i) => picks[i]);
          if (chosen.length === 0) return;
          const fixed = feeFor(transactionVsize(1, [RECIPIENTS[0]!]) - inputVbytes, 1000n);
          const amount = sum(chosen.map((v) => v - 68n)) - fixed;
          if (amount < 294n || chosen.some((v) => v <= 68n)) return;
          const req = request(values, amount);
          const selection = selectCoins(req);
          expectSound(selection, req);
          expect(selection.change).toBe(0n);
          expect(selection.outputs).toHaveLength(1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes the largest coins with change when no changeless set exists', () => {
    const req = request([100_000n, 50_000n, 2_000_000n], 1_000_000n, 2000n);
    const selection = selectCoins(req);
    expectSound(selection, req);
    expect(selection.inputs.map((c) => c.value)).toEqual([2_000_000n]);
    expect(selection.vsize).toBe(141);
    expect(selection.fee).toBe(282n);
    expect(selection.change).toBe(2_000_000n - 1_000_000n - 282n);
  });

  it("adds an unconfirmed coin's ancestor fee to the fee, and counts it against the coin's worth", () => {
    const parentShortfall = 500n;
    const unconfirmed = { ...coin(2_000_000n, 7), ancestorFee: parentShortfall };
    const req = { ...request([], 1_000_000n, 2000n), coins: [unconfirmed] };
    const selection = selectCoins(req);
    expect(selection.fee).toBe(282n + parentShortfall);
    expect(selection.change).toBe(2_000_000n - 1_000_000n - 282n - parentShortfall);
    const sendAll = selectCoins({
      ...req,
      payment: { ...req.payment, value: 2_000_000n },
      subtractFee: true,
    });
    expect(sendAll.outputs[0]!.value).toBe(2_000_000n - feeFor(sendAll.vsize, 2000n) - parentShortfall);
    // A coin whose ancestors lack more than it is worth is not spent.
    const worthless = { ...coin(1_000n, 8), ancestorFee: 900n };
    expect(() =>
      selectCoins({ ...req, coins: [worthless], payment: { ...req.payment, value: 300n } }),
    ).toThrow(InsufficientFundsError);
  });

  it('spends an exact match without change', () => {
    // Coin 10 000 at 1 sat/vB: 68 for the input, 43 for the rest (10 + 1 marker + 31 payment + 1 rounding).
    const fixed = feeFor(transactionVsize(1, [RECIPIENTS[0]!]) - inputVbytes, 1000n);
    const req = request([70_000n, 10_000n, 30_000n], 10_000n - 68n - fixed);
    const selection = selectCoins(req);
    expectSound(selection, req);
    expect(selection.inputs.map((c) => c.value)).toEqual([10_000n]);
    expect(selection.change).toBe(0n);
    expect(selection.fee).toBe(68n + fixed);
  });

  it('drops change below dust to the fee', () => {
    // 100 000 − 99 500 leaves 500 − 141 = 359 for change: dust on P2WPKH is 294, so 359 stays; at 2 sat/vB
    // the fee is 282 and 218 would be left: dust, given to the fee.
    const low = selectCoins(request([100_000n], 99_500n, 1000n));
    expect(low.change).toBe(359n);
    const high = selectCoins(request([100_000n], 99_500n, 2000n));
    expect(high.change).toBe(0n);
    expect(high.fee).toBe(500n);
    expect(high.vsize).toBe(110);
  });

  it('skips coins not worth their input fee and says how much is missing, fee included', () => {
    const req = request([60n, 5_000n], 10_000n, 1000n);
    const error = (() => {
      try {
        selectCoins(req);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(InsufficientFundsError);
    const insufficient = error as InsufficientFundsError;
    expect(insufficient.available).toBe(5_000n);
    expect(insufficient.needed).toBe(10_000n + 110n);
    expect(insufficient.missing).toBe(5_110n);
  });

  it('sends the whole balance when the payment pays the fee, every coin included', () => {
    const values = [60n, 5_000n, 12_345n];
    const req = request(values, sum(values), 1000n, true);
    const selection = selectCoins(req);
    expectSound(selection, req);
    expect(selection.inputs).toHaveLength(3);
    expect(selection.change).toBe(0n);
    const vsize = transactionVsize(3, [RECIPIENTS[0]!]);
    expect(selection.fee).toBe(BigInt(vsize));
    expect(selection.outputs[0]!.value).toBe(sum(values) - BigInt(vsize));
  });

  it('refuses payments below dust, before and after the fee is taken from them', () => {
    expect(() => selectCoins(request([100_000n], 293n))).toThrow(PaymentBelowDustError);
    expect(() => selectCoins(request([100_000n], 400n, 1000n, true))).toThrow(
      expect.objectContaining({ threshold: 294n, amount: 400n - 141n }),
    );
  });

  it('raises a fee rate below the minimum relay rate to it', () => {
    const selection = selectCoins(request([100_000n], 50_000n, 10n));
    expect(selection.fee).toBe(141n);
  });
});

describe('branchAndBound', () => {
  it('finds a set in range whenever one exists (property, against every subset)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 1_000n }), { maxLength: 10 }),
        fc.bigInt({ min: 1n, max: 5_000n }),
        fc.bigInt({ min: 0n, max: 50n }),
        (unsorted, target, cost) => {
          const values = [...unsorted].sort((a, b) => (a === b ? 0 : a > b ? -1 : 1));
          let bestExcess: bigint | null = null;
          for (let mask = 0; mask < 1 << values.length; mask++) {
            const total = sum(values.filter((_, i) => mask & (1 << i)));
            if (
              total >= target &&
              total <= target + cost &&
              (bestExcess === null || total - target < bestExcess)
            ) {
              bestExcess = total - target;
            }
          }
          const found = branchAndBound(values, target, cost);
          if (bestExcess === null) {
            expect(found).toBeNull();
          } else {
            expect(found).not.toBeNull();
            expect(sum(found!.map((i) => values[i]!)) - target).toBe(bestExcess);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
