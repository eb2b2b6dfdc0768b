/**
 * Web3 Secret Storage v3 keystores (the `UTC--...` files geth, ethers and MetaMask read and write):
 * export with scrypt (N=2^17, r=8, p=1) + AES-128-CTR + keccak-256 MAC; import of scrypt and
 * PBKDF2-HMAC-SHA256 files. Neither the key nor the password ever appears in an error.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import type { KdfCaller } from '../../custody/kdf-scheduler.ts';
import { WrongPasswordError } from '../../custody/key-vault.ts';
import { EvmInputError } from './errors.ts';
import { type EvmKeyPair, evmKeyFromPrivate } from './keys.ts';
import { deriveKey, type KdfParams } from './keystore-kdf.ts';

export { WrongPasswordError };

export interface KeystoreV3 {
  /** Lower-case hex without 0x, as geth writes it. */
  address: string;
  crypto: {
    cipher: 'aes-128-ctr';
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; p: number; r: number; salt: string };
    mac: string;
  };
  id: string;
  version: 3;
}

export interface ExportedKeystore {
  /** `UTC--<ISO time, ':' as '-'>--<address>`, geth's file name. */
  filename: string;
  content: KeystoreV3;
}

/** Memory-hard enough (128 MiB per guess) and what ethers writes by default. */
export const KEYSTORE_SCRYPT = { n: 2 ** 17, r: 8, p: 1 } as const;

/** A keystore is a few hundred bytes; anything far larger is not one. */
const MAX_KEYSTORE_CHARS = 16_384;

export async function exportKeystore(
  privateKeyHex: string,
  password: string,
  options: { now?: Date; caller?: KdfCaller } = {},
): Promise<ExportedKeystore> {
  if (typeof password !== 'string') throw new EvmInputError('password must be a string');
  const key = evmKeyFromPrivate(privateKeyHex);
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const params: KdfParams = { kdf: 'scrypt', ...KEYSTORE_SCRYPT, dklen: 32, salt };
  const derived = await deriveKey(new TextEncoder().encode(password), params, options.caller);
  const secret = hexToBytes(key.privateKey);
  try {
    const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
    const ciphertext = new Uint8Array(Buffer.concat([cipher.update(secret), cipher.final()]));
    const address = key.address.slice(2).toLowerCase();
    return {
      filename: keystoreFilename(address, options.now ?? new Date()),
      content: {
        address,
        crypto: {
          cipher: 'aes-128-ctr',
          cipherparams: { iv: bytesToHex(iv) },
          ciphertext: bytesToHex(ciphertext),
          kdf: 'scrypt',
          kdfparams: {
            dklen: 32,
            n: KEYSTORE_SCRYPT.n,
            p: KEYSTORE_SCRYPT.p,
            r: KEYSTORE_SCRYPT.r,
            salt: bytesToHex(salt),
          },
          mac: bytesToHex(mac(derived, ciphertext)),
        },
        id: randomUUID(),
        version: 3,
      },
    };
  } finally {
    derived.fill(0);
    secret.fill(0);
  }
}

/**
 * Opens a keystore (JSON text or parsed object) as geth, ethers, MyEtherWallet and web3 write them:
 * `crypto` or `Crypto`, with or without `address`, keys shorter than 32 bytes left-padded as geth does.
 *
 * `caller` says whose turn on the KDF scheduler the derivation takes.
 *
 * @throws WrongPasswordError when the MAC does not match.
 * @throws EvmInputError for anything that is not a v3 keystore this can open.
 */
export async function importKeystore(
  content: unknown,
  password: string,
  caller: KdfCaller = {},
): Promise<EvmKeyPair> {
  if (typeof password !== 'string') throw new EvmInputError('password must be a string');
  const keystore = parseKeystore(content);
  const derived = await openMac(keystore, password, caller);
  try {
    const decipher = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), keystore.iv);
    const plain = new Uint8Array(Buffer.concat([decipher.update(keystore.ciphertext), decipher.final()]));
    const secret = new Uint8Array(32);
    secret.set(plain, 32 - plain.length);
    plain.fill(0);
    let pair: EvmKeyPair;
    try {
      pair = evmKeyFromPrivate(bytesToHex(secret));
    } finally {
      secret.fill(0);
    }
    if (keystore.address !== null && keystore.address !== pair.address.slice(2).toLowerCase()) {
      throw new EvmInputError(`keystore says address 0x${keystore.address} but its key is ${pair.address}`);
    }
    return pair;
  } finally {
    derived.fill(0);
  }
}

/** The derived key a keystore's password gives (after the MAC check); for tests against published vectors. */
export async function keystoreDerivedKey(
  content: unknown,
  password: string,
  caller: KdfCaller = {},
): Promise<Uint8Array> {
  return openMac(parseKeystore(content), password, caller);
}

export function keystoreFilename(address: string, date: Date): string {
  const hex = address.replace(/^0x/, '').toLowerCase();
  return `UTC--${date.toISOString().replace(/:/g, '-')}--${hex}`;
}

interface ParsedKeystore {
  address: string | null;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  mac: Uint8Array;
  kdf: KdfParams;
}

/**
 * The password as UTF-8 bytes, as geth and the specification take it; if that fails and NFKC changes
 * it, the normalized form, as ethers takes it.
 */
async function openMac(keystore: ParsedKeystore, password: string, caller: KdfCaller): Promise<Uint8Array> {
  const candidates = [password];
  if (password.normalize('NFKC') !== password) candidates.push(password.normalize('NFKC'));
  for (const candidate of candidates) {
    const derived = await deriveKey(new TextEncoder().encode(candidate), keystore.kdf, caller);
    const expected = mac(derived, keystore.ciphertext);
    if (timingSafeEqual(expected, keystore.mac)) return derived;
    derived.fill(0);
  }
  throw new WrongPasswordError();
}

function mac(derived: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(derived.subarray(16, 32), ciphertext));
}

function parseKeystore(content: unknown): ParsedKeystore {
  let json: unknown = content;
  if (typeof content === 'string') {
    if (content.length > MAX_KEYSTORE_CHARS) throw new EvmInputError('keystore is too large');
    try {
      json = JSON.parse(content);
    } catch {
      throw new EvmInputError('keystore is not valid JSON');
    }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new EvmInputError('keystore must be a JSON object');
  const file = json as Record<string, unknown>;
  if (wholeNumber(file['version']) !== 3) throw new EvmInputError('only version 3 keystores are supported');
  const crypto = (file['crypto'] ?? file['Crypto']) as Record<string, unknown> | undefined;
  if (crypto === null || typeof crypto !== 'object')
    throw new EvmInputError('keystore has no crypto section');
  if (crypto['cipher'] !== 'aes-128-ctr') throw new EvmInputError('keystore cipher must be aes-128-ctr');
  const params = (crypto['cipherparams'] ?? {}) as Record<string, unknown>;
  const kdfparams = crypto['kdfparams'] as Record<string, unknown> | undefined;
  if (kdfparams === null || typeof kdfparams !== 'object')
    throw new EvmInputError('keystore has no kdfparams');

  const iv = hexField(params['iv'], 'cipherparams.iv', 16, 16);
  const ciphertext = hexField(crypto['ciphertext'], 'ciphertext', 1, 32);
  const macBytes = hexField(crypto['mac'], 'mac', 32, 32);
  const salt = hexField(kdfparams['salt'], 'kdfparams.salt', 1, 64);
  const dklen = wholeNumber(kdfparams['dklen']);
  let kdf: KdfParams;
  if (crypto['kdf'] === 'scrypt') {
    kdf = {
      kdf: 'scrypt',
      n: wholeNumber(kdfparams['n']),
      r: wholeNumber(kdfparams['r']),
      p: wholeNumber(kdfparams['p']),
      dklen,
      salt,
    };
  } else if (crypto['kdf'] === 'pbkdf2') {
    if (kdfparams['prf'] !== 'hmac-sha256')
      throw new EvmInputError('keystore pbkdf2 prf must be hmac-sha256');
    kdf = { kdf: 'pbkdf2', c: wholeNumber(kdfparams['c']), dklen, salt };
  } else {
    throw new EvmInputError('keystore kdf must be scrypt or pbkdf2');
  }

  let address: string | null = null;
  if (file['address'] !== undefined && file['address'] !== null && file['address'] !== '') {
    const text = String(file['address']).replace(/^0x/i, '').toLowerCase();
    if (!/^[0-9a-f]{40}$/.test(text)) throw new EvmInputError('keystore address is not an EVM address');
    address = text;
  }
  return { address, iv, ciphertext, mac: macBytes, kdf };
}

/** A keystore number, written as a JSON number or decimal text; anything else is NaN, which the checks refuse. */
function wholeNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
}

function hexField(value: unknown, field: string, minBytes: number, maxBytes: number): Uint8Array {
  const text = typeof value === 'string' ? value.replace(/^0x/i, '') : '';
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text) || text.length / 2 < minBytes || text.length / 2 > maxBytes) {
    throw new EvmInputError(
      `keystore ${field} must be hex of ${minBytes === maxBytes ? minBytes : `${minBytes} to ${maxBytes}`} bytes`,
    );
  }
  return hexToBytes(text.toLowerCase());
}
