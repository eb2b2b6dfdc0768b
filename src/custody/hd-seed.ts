import { randomBytes } from 'node:crypto';
import { HDKey, type Versions } from '@scure/bip32';
import {
  entropyToMnemonic,
  mnemonicToEntropy,
  mnemonicToSeedWebcrypto,
  validateMnemonic,
} from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/**
 * An HD wallet's secret is its BIP-39 entropy: the mnemonic and the BIP-32 seed both follow from it, so
 * it is what gets sealed, and the mnemonic can be given back on export. English words, no BIP-39
 * passphrase (the wallet password seals the entropy instead).
 */

/** 256 bits: a 24-word mnemonic. */
const ENTROPY_BYTES = 32;

export function newEntropy(): Uint8Array {
  return new Uint8Array(randomBytes(ENTROPY_BYTES));
}

/** The entropy a mnemonic spells, or null when it is not a valid English BIP-39 mnemonic. */
export function entropyOfMnemonic(mnemonic: string): Uint8Array | null {
  const words = mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
  return validateMnemonic(words, wordlist) ? mnemonicToEntropy(words, wordlist) : null;
}

export function mnemonicOf(entropy: Uint8Array): string {
  return entropyToMnemonic(entropy, wordlist);
}

/**
 * The BIP-32 root of the wallet. The seed's PBKDF2 (2048 rounds, native WebCrypto off the event loop)
 * costs a few milliseconds, so it needs no turn on the KDF scheduler as the password's scrypt does.
 */
export async function rootNode(entropy: Uint8Array, versions?: Versions): Promise<HDKey> {
  const seed = await mnemonicToSeedWebcrypto(mnemonicOf(entropy));
  try {
    return HDKey.fromMasterSeed(seed, versions);
  } finally {
    seed.fill(0);
  }
}
