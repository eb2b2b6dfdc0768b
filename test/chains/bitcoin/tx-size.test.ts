import { Transaction as BitcoinJsTransaction } from 'bitcoinjs-lib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outputScript } from '../../../src/chains/bitcoin/address.ts';
import {
  feeFor,
  feeRateFromSatPerVb,
  MIN_RELAY_FEE_RATE,
  satPerVbText,
} from '../../../src/chains/bitcoin/fee-rate.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import {
  dustThreshold,
  inputVbytes,
  outputVbytes,
  transactionVsize,
} from '../../../src/chains/bitcoin/tx-size.ts';

const { mainnet } = BITCOIN_NETWORKS;
const script = (address: string) => outputScript(address, mainnet);
const P2WPKH = script('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
const P2WSH = script('bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3');
const P2TR = script('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0');
const P2PKH = script('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
const P2SH = Uint8Array.from(Buffer.from('a914751e76e8199196d454941c45d1b3a323f1433bd687', 'hex'));
const SCRIPTS = [P2WPKH, P2WSH, P2TR, P2PKH, P2SH];

describe('transaction sizes', () => {
  it('counts a P2WPKH input as 68 vB and outputs by their scripts', () => {
    expect(inputVbytes).toBe(68);
    expect(SCRIPTS.map(outputVbytes)).toEqual([31, 43, 43, 34, 32]);
    // 1 in, 2 out P2WPKH: the well-known 140.5 vB, rounded up.
    expect(transactionVsize(1, [P2WPKH, P2WPKH])).toBe(141);
    expect(transactionVsize(2, [P2WPKH])).toBe(10 + 1 + 2 * 68 + 31);
  });

  it('equals bitcoinjs-lib’s virtual size of the same transaction with worst-case 72-byte signatures', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.constantFrom(...SCRIPTS), { minLength: 1, maxLength: 260 }),
        (inputs, outputs) => {
          const tx = new BitcoinJsTransaction();
          tx.version = 2;
          for (let i = 0; i < inputs; i++) {
            tx.addInput(new Uint8Array(32).fill(i % 256), i, 0xfffffffd);
            tx.setWitness(i, [new Uint8Array(72), new Uint8Array(33)]);
          }
          for (const output of outputs) tx.addOutput(output, 1000n);
          expect(transactionVsize(inputs, outputs)).toBe(tx.virtualSize());
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives Bitcoin Core’s dust thresholds at 3 sat/vB', () => {
    expect(SCRIPTS.map(dustThreshold)).toEqual([294n, 330n, 330n, 546n, 540n]);
    expect(dustThreshold(Uint8Array.from([0x6a, 0x01, 0x00]))).toBe(0n);
  });
});

describe('fee rates', () => {
  it('reads sat/vB with up to three decimals into sat per 1000 vB', () => {
    expect(feeRateFromSatPerVb('1.5')).toBe(1500n);
    expect(feeRateFromSatPerVb(2)).toBe(2000n);
    expect(feeRateFromSatPerVb('0.001')).toBe(1n);
    expect(feeRateFromSatPerVb('87.882')).toBe(87882n);
    expect(() => feeRateFromSatPerVb('1.0001')).toThrow(/decimals/);
    expect(() => feeRateFromSatPerVb('0')).toThrow(/greater than zero/);
    expect(() => feeRateFromSatPerVb('-1')).toThrow(/negative/);
    expect(satPerVbText(1500n)).toBe('1.5');
    expect(MIN_RELAY_FEE_RATE).toBe(1000n);
  });

  it('rounds a fee up to a whole satoshi', () => {
    expect(feeFor(141, 1000n)).toBe(141n);
    expect(feeFor(141, 1500n)).toBe(212n); // 211.5
    expect(feeFor(1, 1n)).toBe(1n);
    expect(feeFor(0, 5000n)).toBe(0n);
    expect(() => feeFor(1.5, 1000n)).toThrow(RangeError);
  });
});
