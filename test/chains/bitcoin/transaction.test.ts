import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction as BitcoinJsTransaction, Psbt, type Signer } from 'bitcoinjs-lib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash160, outputScript } from '../../../src/chains/bitcoin/address.ts';
import { type Coin, selectCoins } from '../../../src/chains/bitcoin/coin-selection.ts';
import { bitcoinKeyFromPrivate } from '../../../src/chains/bitcoin/keys.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import {
  btcToSats,
  psbtBase64,
  RBF_SEQUENCE,
  readRawTransaction,
  satsToBtc,
  signAndFinalize,
  unsignedTransaction,
} from '../../../src/chains/bitcoin/transaction.ts';
import vectors from '../../vectors/bitcoin_vectors.json' with { type: 'json' };

const { mainnet, regtest } = BITCOIN_NETWORKS;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

const alice = bitcoinKeyFromPrivate(vectors.addresses[3]!.private_key_hex, regtest);
const bob = bitcoinKeyFromPrivate(vectors.addresses[0]!.private_key_hex, regtest);
const carol = bitcoinKeyFromPrivate(vectors.addresses[1]!.private_key_hex, regtest);
const recipient = outputScript('mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r', regtest);

function coinOf(owner: typeof alice, value: bigint, seed: number): Coin {
  return {
    txid: (seed * 0x1111).toString(16).padStart(64, 'a'),
    vout: seed,
    value,
    address: owner.address,
    script: outputScript(owner.address, regtest),
  };
}

// Two coins too small alone: both are spent, with change to Carol.
const selection = selectCoins({
  coins: [coinOf(alice, 60_000n, 1), coinOf(bob, 50_000n, 2)],
  payment: { script: recipient, value: 100_000n },
  changeScript: outputScript(carol.address, regtest),
  feeRate: 2500n,
  subtractFee: false,
});
const keys = new Map([
  [alice.address, alice.privateKey],
  [bob.address, bob.privateKey],
]);

/** Checks every input's BIP-143 signature with bitcoinjs-lib's sighash and @noble/curves. */
function expectSignaturesVerify(raw: string, coins: Coin[]): void {
  const tx = BitcoinJsTransaction.fromHex(raw);
  expect(tx.ins).toHaveLength(coins.length);
  for (const [index, input] of tx.ins.entries()) {
    const [signature, publicKey] = input.witness;
    expect(input.script).toHaveLength(0);
    const scriptCode = Uint8Array.from([0x76, 0xa9, 20, ...hash160(publicKey!), 0x88, 0xac]);
    expect(hex(Uint8Array.from([0x00, 20, ...hash160(publicKey!)]))).toBe(hex(coins[index]!.script));
    const hashType = signature![signature!.length - 1]!;
    expect(hashType).toBe(BitcoinJsTransaction.SIGHASH_ALL);
    const digest = tx.hashForWitnessV0(index, scriptCode, coins[index]!.value, hashType);
    const der = signature!.subarray(0, -1);
    expect(secp256k1.verify(der, digest, publicKey!, { prehash: false, format: 'der' })).toBe(true);
  }
}

describe('unsignedTransaction', () => {
  it('is version 2, signals RBF on every input and names each spent output', async () => {
    const tx = await unsignedTransaction(selection);
    expect(tx.version).toBe(2);
    expect(tx.inputsLength).toBe(2);
    for (const [index, coin] of selection.inputs.entries()) {
      const input = tx.getInput(index);
      expect(input.sequence).toBe(RBF_SEQUENCE);
      expect(hex(input.txid!)).toBe(coin.txid);
      expect(input.index).toBe(coin.vout);
      expect(input.witnessUtxo?.amount).toBe(coin.value);
      expect(hex(input.witnessUtxo!.script)).toBe(hex(coin.script));
    }
    expect(tx.outputsLength).toBe(2);
    expect(tx.getOutput(0).amount).toBe(100_000n);
    expect(tx.getOutput(1).amount).toBe(selection.change);
  });
});

describe('signAndFinalize', () => {
  it('signs transactions that bitcoinjs-lib reads and whose signatures verify', async () => {
    const signed = signAndFinalize(await unsignedTransaction(selection), keys);
    const parsed = BitcoinJsTransaction.fromHex(signed.hex);
    expect(parsed.getId()).toBe(signed.txid);
    expect(parsed.version).toBe(2);
    expect(parsed.ins.map((input) => input.sequence)).toEqual([RBF_SEQUENCE, RBF_SEQUENCE]);
    expect(parsed.outs.map((out) => out.value)).toEqual(selection.outputs.map((o) => o.value));
    expect(signed.fee).toBe(selection.fee);
    expect(signed.vsize).toBe(parsed.virtualSize());
    // The estimate assumes 72-byte signatures; low-R ones are never larger.
    expect(signed.vsize).toBeLessThanOrEqual(selection.vsize);
    expect(signed.vsize).toBeGreaterThanOrEqual(selection.vsize - 1);
    expectSignaturesVerify(signed.hex, selection.inputs);
  });

  it('refuses to sign without every input’s key, or with a key of another address', async () => {
    const unsigned = () => unsignedTransaction(selection);
    const first = await unsigned();
    expect(() => signAndFinalize(first, new Map([[alice.address, alice.privateKey]]))).toThrow(
      /no key for input 1/,
    );
    const second = await unsigned();
    expect(() =>
      signAndFinalize(
        second,
        new Map([
          [alice.address, bob.privateKey],
          [bob.address, bob.privateKey],
        ]),
      ),
    ).toThrow(/not that address's key/);
    const third = await unsigned();
    expect(() => signAndFinalize(third, new Map([[alice.address, 'zz']]))).toThrow(/64-hex/);
  });
});

describe('selections signed end to end', () => {
  it('pay the selected fee, verify, and are never larger than the estimate (property)', async () => {
    const owners = [alice, bob];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            value: fc.bigInt({ min: 1_000n, max: 1_000_000n }),
            owner: fc.integer({ min: 0, max: 1 }),
          }),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        fc.bigInt({ min: 300n, max: 2_000_000n }),
        fc.bigInt({ min: 1000n, max: 20_000n }),
        fc.boolean(),
        async (coins, amount, feeRate, subtractFee) => {
          const request = {
            coins: coins.map(({ value, owner }, index) => coinOf(owners[owner]!, value, index + 1)),
            payment: { script: recipient, value: amount },
            changeScript: outputScript(carol.address, regtest),
            feeRate,
            subtractFee,
          };
          let chosen: ReturnType<typeof selectCoins>;
          try {
            chosen = selectCoins(request);
          } catch {
            return; // refusals are coin-selection.test.ts's
          }
          const signed = signAndFinalize(await unsignedTransaction(chosen), keys);
          expect(signed.fee).toBe(chosen.fee);
          expect(signed.vsize).toBeLessThanOrEqual(chosen.vsize);
          expectSignaturesVerify(signed.hex, chosen.inputs);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('psbtBase64', () => {
  it('is a PSBT that bitcoinjs-lib reads, signs and extracts into the same transaction', async () => {
    const base64 = psbtBase64(await unsignedTransaction(selection));
    const psbt = Psbt.fromBase64(base64);
    expect(psbt.txInputs).toHaveLength(2);
    for (const [index, coin] of selection.inputs.entries()) {
      expect(psbt.data.inputs[index]!.witnessUtxo?.value).toBe(coin.value);
    }
    for (const owner of [alice, bob]) {
      const secret = bytes(owner.privateKey);
      const signer: Signer = {
        publicKey: bytes(owner.publicKey),
        sign: (digest) => secp256k1.sign(digest, secret, { prehash: false }),
      };
      psbt.signAllInputs(signer);
    }
    psbt.finalizeAllInputs();
    const extracted = psbt.extractTransaction();
    const ours = signAndFinalize(await unsignedTransaction(selection), keys);
    expect(extracted.getId()).toBe(ours.txid);
    expectSignaturesVerify(extracted.toHex(), selection.inputs);
  });
});

describe('readRawTransaction', () => {
  it('reads the vectors’ transactions: ids, outpoints, addresses, values, signed', async () => {
    const [bip143, genesis, mempool] = vectors.txs;
    const segwit = (await readRawTransaction(bip143!.raw, mainnet))!;
    expect(segwit.txid).toBe(bip143!.txid);
    expect(segwit.inputs).toEqual([
      { txid: '9f96ade4b41d5433f4eda31e1738ec2b36f6e7d1420d94a6af99801a88f7f7ff', vout: 0 },
      { txid: '8ac60eb9575db5b2d987e29f301b5b819ea83a5c6579d282d189cc04b8e151ef', vout: 1 },
    ]);
    expect(segwit.outputs).toEqual([
      { address: '1Cu32FVupVCgHkMMRJdYJugxwo2Aprgk7H', value: 112340000n },
      { address: '16TZ8J6Q5iZKBWizWzFAYnrsaox5Z5aBRV', value: 223450000n },
    ]);
    expect(segwit.signed).toBe(true);

    const coinbase = (await readRawTransaction(genesis!.raw, mainnet))!;
    expect(coinbase.txid).toBe(genesis!.txid);
    expect(coinbase.outputs).toEqual([{ address: null, value: 5_000_000_000n }]); // P2PK has no address
    expect(coinbase.signed).toBe(true);

    const legacy = (await readRawTransaction(mempool!.raw, mainnet))!;
    expect(legacy.txid).toBe(mempool!.txid);
    expect(legacy.outputs.map((o) => o.address?.[0])).toEqual(['3', '1']);
    expect(legacy.outputs.map((o) => o.value)).toEqual([27713n, 7639n]);
  });

  it('reads our own transactions, unsigned and signed, with the network’s addresses', async () => {
    const unsigned = await unsignedTransaction(selection);
    const before = (await readRawTransaction(hex(unsigned.unsignedTx), regtest))!;
    expect(before.signed).toBe(false);
    expect(before.inputs).toEqual(selection.inputs.map((c) => ({ txid: c.txid, vout: c.vout })));
    const signed = signAndFinalize(unsigned, keys);
    const after = (await readRawTransaction(signed.hex, regtest))!;
    expect(after.signed).toBe(true);
    expect(after.txid).toBe(signed.txid);
    expect(after.txid).toBe(before.txid);
    expect(after.outputs).toEqual([
      { address: 'mrCDrCybB6J1vRfbwM5hemdJz73FwDBC8r', value: 100_000n },
      { address: carol.address, value: selection.change },
    ]);
  });

  it('answers null for what is no transaction', async () => {
    for (const garbage of [
      '',
      'zz',
      '00',
      '0100000000',
      vectors.txs[0]!.raw.slice(0, -2),
      `${vectors.txs[1]!.raw}00`,
    ]) {
      expect(await readRawTransaction(garbage, mainnet), garbage.slice(0, 20)).toBeNull();
    }
  });
});

describe('BTC amounts', () => {
  it('writes satoshis with 8 decimals and reads BTC text exactly', () => {
    expect(satsToBtc(10_000n)).toBe('0.00010000');
    expect(satsToBtc(2_100_000_000_000_000n)).toBe('21000000.00000000');
    expect(satsToBtc(0n)).toBe('0.00000000');
    expect(btcToSats('0.0001')).toBe(10_000n);
    expect(btcToSats('1')).toBe(100_000_000n);
    expect(btcToSats('0')).toBe(0n);
    expect(btcToSats('0.000000001')).toBeNull();
    expect(btcToSats('-1')).toBeNull();
    expect(btcToSats('one')).toBeNull();
  });
});
