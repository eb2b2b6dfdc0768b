// The devnet's crypto and encodings against published vectors (bitcoin_vectors.json): BIP-143's signed
// P2WPKH input verifies and a tampered one does not; every network's genesis hashes as on the real one.
import { readFileSync } from 'node:fs';
import { crypto, Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { addressOfScript, outputScriptOf } from '../../../devnets/bitcoin/address.ts';
import { BitcoinChain, decodeTransaction } from '../../../devnets/bitcoin/chain.ts';
import { descriptorChecksum } from '../../../devnets/bitcoin/descriptor.ts';
import { formatMoney, RpcError } from '../../../devnets/bitcoin/errors.ts';
import { Btc, satsOfBtc, stringifyJson } from '../../../devnets/bitcoin/json.ts';
import { NETWORKS } from '../../../devnets/bitcoin/networks.ts';
import { coreAsm, esploraAsm, scriptKind } from '../../../devnets/bitcoin/script.ts';
import { verifyInput } from '../../../devnets/bitcoin/verify.ts';

interface VectorTx {
  name: string;
  raw: string;
  txid: string;
  wtxid?: string;
  size: number;
  weight: number;
  vsize?: number;
  p2wpkh_input_index?: number;
  p2wpkh_prevout_value_sat?: number;
  p2wpkh_prev_scriptpubkey?: string;
}
interface VectorAddress {
  pubkey: string;
  address: string;
  testnet_address_same_key: string;
  regtest_address_same_key: string;
}
const vectors = JSON.parse(readFileSync('/work/shared/vectors/bitcoin_vectors.json', 'utf8')) as {
  txs: VectorTx[];
  addresses: VectorAddress[];
};
const bip143 = vectors.txs.find((t) => t.name.startsWith('BIP-143')) as VectorTx;
const genesisCoinbase = vectors.txs.find((t) => t.name.includes('genesis')) as VectorTx;

function bip143Prevouts(tx: Transaction) {
  const index = bip143.p2wpkh_input_index as number;
  return tx.ins.map((_, i) =>
    i === index
      ? {
          script: Buffer.from(bip143.p2wpkh_prev_scriptpubkey as string, 'hex'),
          value: BigInt(bip143.p2wpkh_prevout_value_sat as number),
        }
      : // input 0 spends a P2PK output (not checked by the devnet)
        {
          script: Buffer.from(
            '2103c9f4836b9a4f77fc0d81f7bcb01b7f1b35916864b9476c241ce9fc198bd25432ac',
            'hex',
          ),
          value: 625000000n,
        },
  );
}

describe('BIP-143 P2WPKH vector', () => {
  it('decodes to the published txid, wtxid, size and weight', () => {
    const tx = decodeTransaction(bip143.raw);
    expect(tx.getId()).toBe(bip143.txid);
    expect(Buffer.from(tx.getHash(true)).reverse().toString('hex')).toBe(bip143.wtxid);
    expect(tx.byteLength()).toBe(bip143.size);
    expect(tx.weight()).toBe(bip143.weight);
    expect(tx.virtualSize()).toBe(bip143.vsize);
  });

  it('its P2WPKH input verifies', () => {
    const tx = decodeTransaction(bip143.raw);
    expect(verifyInput(tx, bip143.p2wpkh_input_index as number, bip143Prevouts(tx))).toBeNull();
  });

  it('refuses the input with a tampered signature, another amount or another key', () => {
    const index = bip143.p2wpkh_input_index as number;
    const tampered = decodeTransaction(bip143.raw);
    const sig = Buffer.from(tampered.ins[index]?.witness[0] as Uint8Array);
    sig[10] = (sig[10] as number) ^ 1;
    tampered.setWitness(index, [sig, tampered.ins[index]?.witness[1] as Uint8Array]);
    expect(verifyInput(tampered, index, bip143Prevouts(tampered))).toBe(
      'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)',
    );

    const tx = decodeTransaction(bip143.raw);
    const prevouts = bip143Prevouts(tx);
    (prevouts[index] as { value: bigint }).value += 1n;
    expect(verifyInput(tx, index, prevouts)).toMatch(/Signature must be zero/);

    const otherKey = bip143Prevouts(tx);
    (otherKey[index] as { script: Uint8Array }).script = Buffer.from(`0014${'11'.repeat(20)}`, 'hex');
    expect(verifyInput(tx, index, otherKey)).toBe(
      'mandatory-script-verify-flag-failed (Witness program hash mismatch)',
    );
  });
});

describe('genesis', () => {
  it('the coinbase vector hashes to 4a5e1e4b…a33b', () => {
    const tx = Transaction.fromHex(genesisCoinbase.raw);
    expect(tx.getId()).toBe(genesisCoinbase.txid);
    expect(tx.byteLength()).toBe(genesisCoinbase.size);
  });

  it.each(Object.values(NETWORKS))('$name block 0 hashes to the real genesis hash', (params) => {
    const chain = new BitcoinChain(params, Buffer.from(`0014${'00'.repeat(20)}`, 'hex'));
    expect(chain.tip.hash).toBe(params.genesisHash);
    expect(chain.height).toBe(0);
    if (params.name !== 'testnet4') expect(chain.tip.txs[0]?.getId()).toBe(genesisCoinbase.txid);
  });

  it('a devnet block hashes its real 80-byte header', () => {
    const chain = new BitcoinChain(NETWORKS.regtest, Buffer.from(`0014${'00'.repeat(20)}`, 'hex'));
    const block = chain.mine(1_800_000_000);
    expect(block.prevHash).toBe(NETWORKS.regtest.genesisHash);
    expect(block.bits).toBe(0x207fffff);
    expect(block.merkleRoot).toBe(block.txs[0]?.getId());
    // BIP-34: the coinbase starts with the height (OP_1 for height 1)
    expect(Buffer.from(block.txs[0]?.ins[0]?.script as Uint8Array)[0]).toBe(0x51);
  });
});

describe('encodings', () => {
  it('decode failures are -22', () => {
    for (const bad of ['', 'zz', '00', `${bip143.raw}00`]) {
      expect(() => decodeTransaction(bad)).toThrowError(RpcError);
      try {
        decodeTransaction(bad);
      } catch (err) {
        expect((err as RpcError).code).toBe(-22);
        expect((err as RpcError).message).toMatch(/^TX decode failed/);
      }
    }
  });

  it('BTC amounts are written exactly with 8 places', () => {
    expect(stringifyJson({ a: Btc.of(1n), b: Btc.of(2_100_000_000_000_000n), c: Btc.of(0n), d: 5n })).toBe(
      '{"a":0.00000001,"b":21000000.00000000,"c":0.00000000,"d":5}',
    );
    expect(formatMoney(1_000_000n)).toBe('0.01');
    expect(formatMoney(5_000_000_000n)).toBe('50.0');
    expect(satsOfBtc(0.1)).toBe(10_000_000n);
    expect(satsOfBtc('0.00000001')).toBe(1n);
    expect(satsOfBtc(1e-8)).toBe(1n);
    expect(satsOfBtc('0.000000001')).toBeNull();
  });

  it.each(vectors.addresses)('P2WPKH address $address on each network', (v) => {
    const script = Buffer.concat([Buffer.from('0014', 'hex'), crypto.hash160(Buffer.from(v.pubkey, 'hex'))]);
    const cases = [
      [NETWORKS.mainnet, v.address],
      [NETWORKS.testnet, v.testnet_address_same_key],
      [NETWORKS.regtest, v.regtest_address_same_key],
    ] as const;
    for (const [params, address] of cases) {
      expect(Buffer.from(outputScriptOf(address, params.encoding) ?? []).toString('hex')).toBe(
        script.toString('hex'),
      );
      expect(addressOfScript(script, params.encoding)).toBe(address);
      expect(outputScriptOf(address.toUpperCase(), params.encoding)).not.toBeNull();
    }
    expect(outputScriptOf(v.address, NETWORKS.regtest.encoding)).toBeNull();
    // one character changed breaks the checksum
    const broken = `${v.address.slice(0, -1)}${v.address.endsWith('q') ? 'p' : 'q'}`;
    expect(outputScriptOf(broken, NETWORKS.mainnet.encoding)).toBeNull();
  });

  it('descriptor checksums follow BIP-380', () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
  });

  it('names scripts as Esplora and Core do', () => {
    const p2wpkh = Buffer.from('0014751e76e8199196d454941c45d1b3a323f1433bd6', 'hex');
    expect(scriptKind(p2wpkh)).toBe('v0_p2wpkh');
    expect(esploraAsm(p2wpkh)).toBe('OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(coreAsm(p2wpkh)).toBe('0 751e76e8199196d454941c45d1b3a323f1433bd6');
    const p2pkh = Buffer.from('76a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac', 'hex');
    expect(scriptKind(p2pkh)).toBe('p2pkh');
    expect(esploraAsm(p2pkh)).toBe(
      'OP_DUP OP_HASH160 OP_PUSHBYTES_20 8280b37df378db99f66f85c95a783a76ac7a6d59 OP_EQUALVERIFY OP_CHECKSIG',
    );
    expect(scriptKind(Buffer.from(`5120${'ab'.repeat(32)}`, 'hex'))).toBe('v1_p2tr');
    expect(scriptKind(Buffer.from(`0020${'ab'.repeat(32)}`, 'hex'))).toBe('v0_p2wsh');
    expect(scriptKind(Buffer.from(`a914${'ab'.repeat(20)}87`, 'hex'))).toBe('p2sh');
    expect(scriptKind(Buffer.from('6a0401020304', 'hex'))).toBe('op_return');
    expect(scriptKind(Buffer.from('51', 'hex'))).toBe('unknown');
  });
});
