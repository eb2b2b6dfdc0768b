import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { describe, expect, it } from 'vitest';
import { bip84Keys } from '../../../src/chains/bitcoin/hd-keys.ts';
import {
  BITCOIN_PRIVATE_KEY_FORM,
  bitcoinKeyCodec,
  bitcoinKeyFromPrivate,
  generateBitcoinKey,
  wifOf,
} from '../../../src/chains/bitcoin/keys.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import vectors from '../../vectors/bitcoin_vectors.json' with { type: 'json' };

const { mainnet, testnet, signet, regtest } = BITCOIN_NETWORKS;
const ORDER = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
const [first] = vectors.addresses;

describe('Bitcoin keys', () => {
  it('reads the BIP-84 vectors’ WIF and hex keys into their public keys and addresses', () => {
    for (const vector of vectors.addresses.filter((v) => v.wif !== undefined)) {
      const fromWif = bitcoinKeyFromPrivate(vector.wif!, mainnet);
      expect(fromWif).toEqual({
        address: vector.address,
        publicKey: vector.pubkey,
        privateKey: vector.private_key_hex,
      });
      expect(bitcoinKeyFromPrivate(vector.private_key_hex, mainnet)).toEqual(fromWif);
      expect(bitcoinKeyFromPrivate(`0x${vector.private_key_hex.toUpperCase()}`, regtest).address).toBe(
        vector.regtest_address_same_key,
      );
      expect(wifOf(vector.private_key_hex, mainnet)).toBe(vector.wif);
    }
  });

  it('takes a test network WIF on every test network, and refuses it across mainnet', () => {
    const wif = wifOf(first!.private_key_hex, testnet);
    expect(wif).toMatch(/^c/);
    expect(bitcoinKeyFromPrivate(wif, signet).address).toBe(first!.testnet_address_same_key);
    expect(bitcoinKeyFromPrivate(wif, regtest).address).toBe(first!.regtest_address_same_key);
    expect(() => bitcoinKeyFromPrivate(wif, mainnet)).toThrow(/for a test network, not mainnet/);
    expect(() => bitcoinKeyFromPrivate(first!.wif!, testnet)).toThrow(/for mainnet, not testnet/);
  });

  it('refuses uncompressed WIF keys, out-of-range keys and other text', () => {
    // Key 1 as an uncompressed mainnet WIF (no 0x01 suffix).
    expect(() =>
      bitcoinKeyFromPrivate('5HpHagT65TZzG1PH3CSu63k8DbpvD8s5ip4nEB3kEsreAnchuDf', mainnet),
    ).toThrow(/uncompressed/);
    expect(() => bitcoinKeyFromPrivate('00'.repeat(32), mainnet)).toThrow(/out of range/);
    expect(() => bitcoinKeyFromPrivate(ORDER, mainnet)).toThrow(/out of range/);
    expect(() => bitcoinKeyFromPrivate('ab'.repeat(31), mainnet)).toThrow(BITCOIN_PRIVATE_KEY_FORM);
    expect(() => bitcoinKeyFromPrivate(`${first!.wif!.slice(0, -1)}e`, mainnet)).toThrow();
    expect(() => wifOf(ORDER, mainnet)).toThrow(/out of range/);
    expect(() => wifOf('xyz', mainnet)).toThrow(/64 hex/);
  });

  it('generates keys that read back to themselves', () => {
    for (const network of [mainnet, testnet, regtest]) {
      const pair = generateBitcoinKey(network);
      expect(pair.address.startsWith(`${network.bech32}1q`)).toBe(true);
      expect(pair.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(bitcoinKeyFromPrivate(pair.privateKey, network)).toEqual(pair);
      expect(bitcoinKeyFromPrivate(wifOf(pair.privateKey, network), network)).toEqual(pair);
    }
    expect(generateBitcoinKey(mainnet).privateKey).not.toBe(generateBitcoinKey(mainnet).privateKey);
  });
});

describe('bitcoinKeyCodec', () => {
  it('makes and reads keys of its network and stores bech32 lowercased', () => {
    const codec = bitcoinKeyCodec(regtest);
    expect(codec.privateKeyForm).toBe(BITCOIN_PRIVATE_KEY_FORM);
    expect(codec.generate().address.startsWith('bcrt1q')).toBe(true);
    expect(codec.fromPrivateKey(first!.private_key_hex).address).toBe(first!.regtest_address_same_key);
    expect(() => codec.fromPrivateKey(wifOf(first!.private_key_hex, mainnet))).toThrow(/mainnet/);
    expect(codec.normalizeAddress(first!.address.toUpperCase())).toBe(first!.address);
  });
});

describe('bip84Keys', () => {
  const mnemonic = `${'abandon '.repeat(11)}about`;
  const seed = mnemonicToSeedSync(mnemonic);

  it('derives the BIP-84 receive addresses 0/0 and 0/1 of account 0 (and change 1/0 by path)', () => {
    const codec = bip84Keys(mainnet);
    expect(codec.accountPath(0)).toBe("m/84'/0'/0'");
    expect(codec.addressPath(7)).toBe('0/7');
    const account = HDKey.fromMasterSeed(seed, codec.versions).derive(codec.accountPath(0));
    // BIP-84's account xpub for this mnemonic.
    expect(account.publicExtendedKey).toBe(
      'xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V',
    );
    const paths = ['0/0', '0/1', '1/0'];
    for (const [index, path] of paths.entries()) {
      const node = account.derive(path === '1/0' ? 'm/1/0' : `m/${codec.addressPath(index)}`);
      const vector = vectors.addresses.find((v) => v.path === `m/84'/0'/0'/${path}`)!;
      expect(Buffer.from(node.publicKey!).toString('hex')).toBe(vector.pubkey);
      expect(codec.addressOf(node.publicKey!)).toBe(vector.address);
    }
  });

  it('uses coin type 1 and tpub versions off mainnet, and the network’s addresses', () => {
    const codec = bip84Keys(regtest);
    expect(codec.accountPath(3)).toBe("m/84'/1'/3'");
    expect(codec.versions).toEqual(regtest.bip32);
    const account = HDKey.fromMasterSeed(seed, codec.versions).derive(codec.accountPath(0));
    expect(account.publicExtendedKey.startsWith('tpub')).toBe(true);
    expect(codec.addressOf(Buffer.from(first!.pubkey, 'hex'))).toBe(first!.regtest_address_same_key);
    expect(codec.normalizeAddress(first!.regtest_address_same_key.toUpperCase())).toBe(
      first!.regtest_address_same_key,
    );
  });
});
