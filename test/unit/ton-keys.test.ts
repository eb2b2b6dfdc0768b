import { randomBytes } from 'node:crypto';
import { keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { mnemonicSeed, tonKeyCodec, tonKeyFromPrivate, tonKeyFromSeed } from '../../src/chains/ton/keys.ts';
import { TON_GLOBAL_ID } from '../../src/chains/ton/wallet-v5r1.ts';
import type { Network } from '../../src/chains/types.ts';

function libraryWallet(seed: Buffer, network: Network): string {
  const { publicKey } = keyPairFromSeed(seed);
  const wallet = WalletContractV5R1.create({
    workchain: 0,
    publicKey,
    walletId: { networkGlobalId: TON_GLOBAL_ID[network] },
  });
  return wallet.address.toString({ bounceable: false, testOnly: network === 'testnet' });
}

describe('TON keys', () => {
  it("answers a seed's V5R1 wallet as @ton/ton computes it, per network", () => {
    for (let i = 0; i < 8; i++) {
      const seed = randomBytes(32);
      for (const network of ['mainnet', 'testnet'] as const) {
        const pair = tonKeyFromSeed(seed, network);
        expect(pair.address).toBe(libraryWallet(seed, network));
        expect(pair.privateKey).toBe(seed.toString('hex'));
        expect(pair.publicKey).toBe(keyPairFromSeed(seed).publicKey.toString('hex'));
      }
    }
    const seed = randomBytes(32);
    expect(tonKeyFromSeed(seed, 'mainnet').address.startsWith('UQ')).toBe(true);
    expect(tonKeyFromSeed(seed, 'testnet').address.startsWith('0Q')).toBe(true);
  });

  it("imports a wallet's 24 words as @ton/crypto reads them", async () => {
    const words = await mnemonicNew(24);
    const { secretKey } = await mnemonicToPrivateKey(words);
    const seed = secretKey.subarray(0, 32);
    expect(Buffer.from(mnemonicSeed(words.join(' '))!).toString('hex')).toBe(seed.toString('hex'));
    const pair = tonKeyFromPrivate(`  ${words.join('\n ').toUpperCase()} `, 'testnet');
    expect(pair.address).toBe(libraryWallet(seed, 'testnet'));
  });

  it('refuses words that are no TON mnemonic', async () => {
    const words = await mnemonicNew(24);
    // Another word list order keeps the words valid but fails the mnemonic's check (almost always).
    const swapped = [...words.slice(1), words[0]!];
    const checks = mnemonicSeed(swapped.join(' ')) === null;
    expect(checks || swapped.join(' ') === words.join(' ')).toBe(true);
    expect(mnemonicSeed(words.slice(0, 23).join(' '))).toBeNull();
    expect(mnemonicSeed([...words.slice(0, 23), 'notaword'].join(' '))).toBeNull();
    expect(() => tonKeyFromPrivate('not a key', 'mainnet')).toThrow();
  });

  it('imports a seed as hex (0x optional) or base64, and stores addresses in the wallet form', () => {
    const seed = randomBytes(32);
    const codec = tonKeyCodec('mainnet');
    const byHex = codec.fromPrivateKey(seed.toString('hex'));
    expect(codec.fromPrivateKey(`0x${seed.toString('hex')}`)).toEqual(byHex);
    expect(codec.fromPrivateKey(seed.toString('base64'))).toEqual(byHex);
    expect(codec.fromPrivateKey(seed.toString('base64url'))).toEqual(byHex);
    const raw = WalletContractV5R1.create({
      workchain: 0,
      publicKey: keyPairFromSeed(seed).publicKey,
      walletId: { networkGlobalId: -239 },
    }).address;
    expect(codec.normalizeAddress(raw.toRawString())).toBe(byHex.address);
    expect(codec.normalizeAddress(raw.toString())).toBe(byHex.address);
    expect(codec.generate().address).toMatch(/^UQ/);
    expect(tonKeyCodec('testnet').generate().address).toMatch(/^0Q/);
  });
});
