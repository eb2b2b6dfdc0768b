import { describe, expect, it } from 'vitest';
import {
  AddressNetworkError,
  addressOfScript,
  canonicalAddress,
  isBitcoinAddress,
  outputScript,
  p2wpkhAddress,
} from '../../../src/chains/bitcoin/address.ts';
import { bitcoinAddressForm } from '../../../src/chains/bitcoin/address-form.ts';
import { BITCOIN_NETWORKS } from '../../../src/chains/bitcoin/networks.ts';
import vectors from '../../vectors/bitcoin_vectors.json' with { type: 'json' };
import cross from '../../vectors/cross_chain_addresses.json' with { type: 'json' };

const { mainnet, testnet, testnet4, signet, regtest } = BITCOIN_NETWORKS;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

// BIP-173 / BIP-350 valid addresses with their scriptPubKeys.
const VALID = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6', mainnet],
  [
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    testnet,
  ],
  [
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
    '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
    mainnet,
  ],
  ['BC1SW50QGDZ25J', '6002751e', mainnet],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323', mainnet],
  [
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    mainnet,
  ],
  ['1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', '76a914751e76e8199196d454941c45d1b3a323f1433bd688ac', mainnet],
] as const;

describe('Bitcoin addresses', () => {
  it('reads the BIP-173 and BIP-350 valid addresses into their scripts, and writes them back', () => {
    for (const [address, script, network] of VALID) {
      expect(isBitcoinAddress(address)).toBe(true);
      expect(hex(outputScript(address, network))).toBe(script);
      expect(addressOfScript(bytes(script), network)).toBe(canonicalAddress(address));
    }
  });

  it('refuses the BIP-173 and BIP-350 invalid addresses', () => {
    const invalid = [
      'tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', // unknown hrp
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', // bad checksum
      'BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', // version 17
      'bc1rw5uspcuh', // program of 1 byte
      'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90', // 41 bytes
      'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', // v0 of 16 bytes
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', // mixed case
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // v1 with a bech32 checksum
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv', // last character changed
      '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMj', // base58 checksum
      '',
      'not an address',
      '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf',
      'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', // Tron: base58check, but prefix 0x41
    ];
    for (const address of invalid) expect(isBitcoinAddress(address), address).toBe(false);
  });

  it('derives the vectors’ P2WPKH addresses on mainnet, the test networks and regtest', () => {
    for (const vector of vectors.addresses) {
      const publicKey = bytes(vector.pubkey);
      expect(p2wpkhAddress(publicKey, mainnet)).toBe(vector.address);
      for (const network of [testnet, testnet4, signet]) {
        expect(p2wpkhAddress(publicKey, network)).toBe(vector.testnet_address_same_key);
      }
      expect(p2wpkhAddress(publicKey, regtest)).toBe(vector.regtest_address_same_key);
    }
    for (const key of cross.keys) {
      expect(p2wpkhAddress(bytes(key.secp256k1_pub_compressed), mainnet)).toBe(key.btc_p2wpkh_mainnet);
      expect(isBitcoinAddress(key.btc_p2pkh_mainnet_compressed)).toBe(true);
    }
    expect(() => p2wpkhAddress(bytes(cross.keys[0]!.secp256k1_pub_uncompressed), mainnet)).toThrow(
      /compressed/,
    );
  });

  it('refuses an address of another network, saying which network it is for', () => {
    const main = vectors.addresses[0]!.address;
    const test = vectors.addresses[0]!.testnet_address_same_key;
    const reg = vectors.addresses[0]!.regtest_address_same_key;
    expect(() => outputScript(main, testnet)).toThrow(AddressNetworkError);
    expect(() => outputScript(main, testnet)).toThrow(/mainnet address, not one of testnet/);
    expect(() => outputScript(test, mainnet)).toThrow(/testnet, testnet4 or signet/);
    expect(() => outputScript(test, mainnet)).toThrow(
      expect.objectContaining({ addressNetworks: 'testnet, testnet4 or signet' }),
    );
    expect(() => outputScript(test, regtest)).toThrow(AddressNetworkError);
    expect(() => outputScript(reg, signet)).toThrow(/regtest/);
    expect(hex(outputScript(test, signet))).toBe(hex(outputScript(main, mainnet)));
    expect(hex(outputScript(reg, regtest))).toBe(hex(outputScript(main, mainnet)));
    expect(() => outputScript('not an address', mainnet)).toThrow(/not a Bitcoin address/);
    expect(() => outputScript('ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9', mainnet)).toThrow(
      /not a Bitcoin address/,
    );
  });

  it('takes base58 test addresses on every test network, regtest included, and not on mainnet', () => {
    // P2PKH (m/n) and P2SH (2) of the test networks.
    const p2pkh = addressOfScript(bytes('76a914751e76e8199196d454941c45d1b3a323f1433bd688ac'), testnet)!;
    const p2sh = addressOfScript(bytes('a914751e76e8199196d454941c45d1b3a323f1433bd687'), regtest)!;
    expect(p2pkh).toMatch(/^[mn]/);
    expect(p2sh).toMatch(/^2/);
    for (const network of [testnet, testnet4, signet, regtest]) {
      expect(hex(outputScript(p2pkh, network))).toBe('76a914751e76e8199196d454941c45d1b3a323f1433bd688ac');
      expect(hex(outputScript(p2sh, network))).toBe('a914751e76e8199196d454941c45d1b3a323f1433bd687');
    }
    expect(() => outputScript(p2pkh, mainnet)).toThrow(AddressNetworkError);
    expect(addressOfScript(bytes('a914751e76e8199196d454941c45d1b3a323f1433bd687'), mainnet)).toMatch(/^3/);
  });

  it('names no address for scripts without one', () => {
    expect(addressOfScript(bytes('6a0b68656c6c6f20776f726c64'), mainnet)).toBeNull(); // OP_RETURN
    expect(addressOfScript(bytes('0014751e76e8199196d454941c45d1b3a323f1433b'), mainnet)).toBeNull(); // short
    expect(addressOfScript(bytes('0010751e76e8199196d454941c45d1b3a323'), mainnet)).toBeNull(); // v0 of 16
    expect(addressOfScript(new Uint8Array(0), mainnet)).toBeNull();
  });

  it('lowercases bech32 and leaves base58 alone', () => {
    expect(canonicalAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(canonicalAddress('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
  });
});

describe('bitcoinAddressForm', () => {
  const pattern = new RegExp(bitcoinAddressForm.pattern);

  it('matches every valid form, lower and upper case bech32, and its example', () => {
    expect(bitcoinAddressForm.isValid(bitcoinAddressForm.example)).toBe(true);
    for (const [address] of VALID) expect(pattern.test(address), address).toBe(true);
    for (const vector of vectors.addresses) {
      for (const address of [
        vector.address,
        vector.testnet_address_same_key,
        vector.regtest_address_same_key,
      ]) {
        expect(pattern.test(address)).toBe(true);
        expect(pattern.test(address.toUpperCase())).toBe(true);
        expect(bitcoinAddressForm.isValid(address.toUpperCase())).toBe(true);
        expect(bitcoinAddressForm.canonical(address.toUpperCase())).toBe(address);
      }
    }
    expect(pattern.test('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf')).toBe(false);
    expect(pattern.test('TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC')).toBe(false);
  });

  it('names a bad checksum that the pattern lets through', () => {
    const typo = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv';
    expect(pattern.test(typo)).toBe(true);
    expect(bitcoinAddressForm.fieldProblem('to', typo, 'mainnet', {})).toBe(
      'The to field must be a Bitcoin address with a valid checksum.',
    );
    expect(bitcoinAddressForm.fieldProblem('to', bitcoinAddressForm.example, 'mainnet', {})).toBeNull();
  });

  it('names an address of the other network, without quoting it', () => {
    const problem = bitcoinAddressForm.fieldProblem('to', bitcoinAddressForm.example, 'testnet', {});
    expect(problem).toBe('The to field is a Bitcoin mainnet address, not one of testnet.');
    const regtest = { BITCOIN_TESTNET_NETWORK: 'regtest' };
    expect(bitcoinAddressForm.fieldProblem('to', bitcoinAddressForm.example, 'testnet', regtest)).toBe(
      'The to field is a Bitcoin mainnet address, not one of regtest.',
    );
  });
});
