import { describe, expect, it } from 'vitest';
import {
  decodeRevertReason,
  decodeString,
  decodeUint,
  functionSelector,
  uintWord,
} from '../../../src/chains/tron/abi.ts';
import { isTronAddress, toBase58Address, toHexAddress } from '../../../src/chains/tron/address.ts';
import { TronInputError } from '../../../src/chains/tron/errors.ts';
import { generateTronKey, tronKeyFromPrivate } from '../../../src/chains/tron/keys.ts';
import { parseJsonWithBigInts } from '../../../src/json/lossless-parse.ts';
import cross from '../../vectors/cross_chain_addresses.json' with { type: 'json' };
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

const keyCases = [
  ...vectors.addresses.map((a) => ({
    privateKey: a.private_key,
    publicKey: a.public_key_uncompressed,
    hex: a.address_hex,
    base58: a.address_base58,
  })),
  ...cross.keys.map((k) => ({
    privateKey: k.private_key_hex,
    publicKey: k.secp256k1_pub_uncompressed,
    hex: k.tron_hex,
    base58: k.tron_base58,
  })),
];

describe('address codec', () => {
  it.each(keyCases.map((c) => [c.base58, c] as const))('%s: base58 <-> 41-hex both ways', (_name, c) => {
    expect(toHexAddress(c.base58)).toBe(c.hex);
    expect(toBase58Address(c.hex)).toBe(c.base58);
    expect(toHexAddress(c.hex.toUpperCase())).toBe(c.hex);
    expect(toBase58Address(c.base58)).toBe(c.base58);
    expect(isTronAddress(c.base58)).toBe(true);
    expect(isTronAddress(c.hex)).toBe(true);
  });

  it('reads the owner and signer addresses of every signed vector', () => {
    for (const v of vectors.signed) {
      const record = v as Record<string, unknown>;
      if (typeof record['owner_hex'] === 'string' && typeof record['owner_base58'] === 'string') {
        expect(toBase58Address(record['owner_hex'])).toBe(record['owner_base58']);
      }
      if (typeof record['signer_hex'] === 'string' && typeof record['signer_base58'] === 'string') {
        expect(toHexAddress(record['signer_base58'])).toBe(record['signer_hex']);
      }
    }
  });

  it.each([
    ['a changed character breaks the checksum', 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HD'],
    ['too short', 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2H'],
    ['not starting with T', 'AMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC'],
    ['base58 alphabet excludes 0', 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK20C'],
    ['EVM form', '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf'],
    ['0x-prefixed Tron hex', '0x417e5f4552091a69125d5dfcb7b8c2659029395bdf'],
    ['hex without the 41 byte', '7e5f4552091a69125d5dfcb7b8c2659029395bdf'],
    ['hex with another prefix', '427e5f4552091a69125d5dfcb7b8c2659029395bdf'],
    ['empty', ''],
  ])('rejects %s', (_why, address) => {
    expect(isTronAddress(address)).toBe(false);
    expect(() => toHexAddress(address)).toThrow(TronInputError);
  });

  it('does not echo a long input (a pasted private key) in its error', () => {
    const key = vectors.addresses[1]!.private_key;
    expect(() => toHexAddress(key)).toThrow(/not shown/);
    try {
      toHexAddress(key);
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });
});

describe('keys', () => {
  it.each(keyCases.map((c) => [c.base58, c] as const))(
    '%s: private key -> public key and address',
    (_n, c) => {
      const pair = tronKeyFromPrivate(c.privateKey);
      expect(pair).toEqual({
        privateKey: c.privateKey,
        publicKey: c.publicKey,
        address: c.base58,
        hexAddress: c.hex,
      });
      expect(tronKeyFromPrivate(`0x${c.privateKey.toUpperCase()}`)).toEqual(pair);
    },
  );

  it('generates keys whose address derives from the private key', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const pair = generateTronKey();
      expect(pair.privateKey).toMatch(/^[0-9a-f]{64}$/);
      expect(pair.publicKey).toMatch(/^04[0-9a-f]{128}$/);
      expect(pair.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(pair.hexAddress).toBe(toHexAddress(pair.address));
      expect(tronKeyFromPrivate(pair.privateKey)).toEqual(pair);
      seen.add(pair.privateKey);
    }
    expect(seen.size).toBe(5);
  });

  it.each([
    ['zero', '0'.repeat(64), /range/],
    ['the group order n', 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', /range/],
    ['63 characters', '1'.repeat(63), /64 hexadecimal/],
    ['65 characters', '1'.repeat(65), /64 hexadecimal/],
    ['non-hex', `${'1'.repeat(63)}g`, /64 hexadecimal/],
  ])('refuses %s with a clear message that does not contain the key', (_why, key, message) => {
    expect(() => tronKeyFromPrivate(key)).toThrow(TronInputError);
    expect(() => tronKeyFromPrivate(key)).toThrow(message);
    try {
      tronKeyFromPrivate(key);
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });

  it('accepts n - 1', () => {
    const pair = tronKeyFromPrivate('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140');
    expect(isTronAddress(pair.address)).toBe(true);
  });
});

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 exact and leaves the rest as JSON.parse does', () => {
    const text =
      '{"balance": 90071992547409930, "small": 1793227200, "neg": -90071992547409930, "f": 1.5e300,' +
      ' "s": "12345678901234567890", "esc": "a\\"90071992547409930", "list": [{"key":"1","value":18446744073709551615}]}';
    expect(parseJsonWithBigInts(text)).toEqual({
      balance: 90071992547409930n,
      small: 1793227200,
      neg: -90071992547409930n,
      f: 1.5e300,
      s: '12345678901234567890',
      esc: 'a"90071992547409930',
      list: [{ key: '1', value: 18446744073709551615n }],
    });
    expect(parseJsonWithBigInts('{"a":9007199254740991}')).toEqual({ a: 9007199254740991 });
  });

  it('rejects what JSON.parse rejects', () => {
    expect(() => parseJsonWithBigInts('{"a": 12345678901234567890')).toThrow(SyntaxError);
  });
});

describe('ABI helpers', () => {
  it('computes selectors', () => {
    expect(functionSelector('transfer(address,uint256)')).toBe('a9059cbb');
    expect(functionSelector('transferFrom(address,address,uint256)')).toBe('23b872dd');
    expect(functionSelector('balanceOf(address)')).toBe('70a08231');
  });

  it('decodes the uint of the real triggerconstantcontract balanceOf answer', () => {
    expect(decodeUint('0000000000000000000000000000000000000000000000000000000040cfcc00')).toBe(1087360000n);
    expect(decodeUint('')).toBeNull();
  });

  it('decodes strings, bytes32 names and revert reasons', () => {
    const text = Buffer.from('Tether USD').toString('hex');
    const encoded = uintWord(32n) + uintWord(10n) + text.padEnd(64, '0');
    expect(decodeString(encoded)).toBe('Tether USD');
    expect(decodeString(Buffer.from('MKR').toString('hex').padEnd(64, '0'))).toBe('MKR');
    expect(decodeString('')).toBeNull();
    expect(decodeString(uintWord(32n) + uintWord(1000n))).toBeNull();
    expect(decodeRevertReason(`08c379a0${uintWord(32n)}${uintWord(10n)}${text.padEnd(64, '0')}`)).toBe(
      'Tether USD',
    );
    expect(decodeRevertReason(`4e487b71${uintWord(0x11n)}`)).toBe('panic 0x11');
    expect(decodeRevertReason('')).toBeNull();
  });

  it('refuses values beyond uint256', () => {
    expect(() => uintWord(1n << 256n)).toThrow(TronInputError);
  });
});
