import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseTonAddress, rawAddress, walletAddress } from '../../src/chains/ton/address.ts';
import { tonAddressForm } from '../../src/chains/ton/address-form.ts';

const RAW = '0:9e88a7a0cd2fa9a4a0d83f41daa773364b295d2855394419314df2ea91fee8fe';
const reference = Address.parseRaw(RAW);

describe('TON addresses', () => {
  it('reads every form @ton/core writes, with its flags', () => {
    for (const bounceable of [true, false]) {
      for (const testOnly of [true, false]) {
        for (const urlSafe of [true, false]) {
          const text = reference.toString({ bounceable, testOnly, urlSafe });
          const parsed = parseTonAddress(text);
          expect(parsed).toEqual({
            address: { workchain: 0, hash: RAW.slice(2) },
            flags: { bounceable, testOnly },
          });
        }
      }
    }
    expect(parseTonAddress(RAW.toUpperCase())).toEqual({
      address: { workchain: 0, hash: RAW.slice(2) },
      flags: null,
    });
    const master = Address.parseRaw(`-1:${RAW.slice(2)}`);
    const parsed = parseTonAddress(master.toString());
    expect(typeof parsed !== 'string' && parsed.address.workchain).toBe(-1);
  });

  it('writes the wallet form @ton/core writes: UQ on mainnet, 0Q on testnet', () => {
    const address = { workchain: 0, hash: RAW.slice(2) };
    expect(walletAddress(address, 'mainnet')).toBe(reference.toString({ bounceable: false }));
    expect(walletAddress(address, 'testnet')).toBe(reference.toString({ bounceable: false, testOnly: true }));
    expect(rawAddress(address)).toBe(RAW);
  });

  it('refuses a wrong checksum, a malformed text and the other network, naming the field', () => {
    const good = reference.toString({ bounceable: false });
    const last = good.at(-1) === 'A' ? 'B' : 'A';
    const mistyped = good.slice(0, -1) + last;
    expect(parseTonAddress(mistyped)).toBe('checksum');
    expect(tonAddressForm.fieldProblem('to', mistyped, 'mainnet', {})).toMatch(/^The to field .*checksum/);
    expect(tonAddressForm.fieldProblem('to', 'EQ-not-an-address', 'mainnet', {})).toMatch(/^The to field/);
    expect(tonAddressForm.fieldProblem('to', good, 'mainnet', {})).toBeNull();
    expect(tonAddressForm.fieldProblem('to', good, 'testnet', {})).toMatch(/mainnet address/);
    const testnet = reference.toString({ bounceable: true, testOnly: true });
    expect(tonAddressForm.fieldProblem('to', testnet, 'testnet', {})).toBeNull();
    expect(tonAddressForm.fieldProblem('to', testnet, 'mainnet', {})).toMatch(/testnet address/);
    // A raw address names no network.
    expect(tonAddressForm.fieldProblem('to', RAW, 'testnet', {})).toBeNull();
    expect(tonAddressForm.fieldProblem('to', RAW, 'mainnet', {})).toBeNull();
    // Mixing the two base64 alphabets is no address.
    expect(
      parseTonAddress(
        `${good.slice(0, 10).replace(/[A-Za-z0-9]/, '-')}${good.slice(11, 20)}+${good.slice(20)}`,
      ),
    ).toBe('malformed');
  });

  it('matches its own pattern and example', () => {
    const pattern = new RegExp(tonAddressForm.pattern);
    expect(pattern.test(tonAddressForm.example)).toBe(true);
    expect(tonAddressForm.isValid(tonAddressForm.example)).toBe(true);
    expect(pattern.test(RAW)).toBe(true);
    expect(pattern.test(`-1:${RAW.slice(2)}`)).toBe(true);
  });

  it('answers the wallet form of a user-friendly address on its own network, and a raw one raw', () => {
    const bounceableTestnet = reference.toString({ bounceable: true, testOnly: true });
    expect(tonAddressForm.canonical(bounceableTestnet)).toBe(
      reference.toString({ bounceable: false, testOnly: true }),
    );
    expect(tonAddressForm.canonical(reference.toString())).toBe(reference.toString({ bounceable: false }));
    expect(tonAddressForm.canonical(RAW.toUpperCase())).toBe(RAW);
  });
});
