// secp256k1 signatures over a 32-byte hash (txID or block hash), Tron style: r || s || v.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressFromPublicKey, type HexAddress } from './address.ts';

export class SignatureError extends Error {}

/** Signs the hash itself (no re-hashing), v = recovery id (0/1), as java-tron's ECKey does. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const rec = secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered' });
  const out = new Uint8Array(65);
  out.set(rec.subarray(1, 65), 0);
  out[64] = rec[0] as number;
  return out;
}

/**
 * ECKey.signatureToAddress: v may be 0/1 (wallet-core, java-tron) or 27/28 (TronWeb);
 * java-tron adds 27 below 27 and accepts headers 27..34 (31..34 are compressed-key forms).
 */
export function recoverSigner(hash: Uint8Array, signature: Uint8Array): HexAddress {
  if (signature.length < 65) throw new SignatureError(`Signature size is ${signature.length}`);
  let header = signature[64] as number;
  if (header < 27) header += 27;
  if (header < 27 || header > 34) throw new SignatureError(`Header byte out of range: ${header}`);
  if (header >= 31) header -= 4;
  const recovery = header - 27;
  const rec = new Uint8Array(65);
  rec[0] = recovery;
  rec.set(signature.subarray(0, 64), 1);
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1.recoverPublicKey(rec, hash, { prehash: false });
  } catch {
    throw new SignatureError('Could not recover public key from signature');
  }
  return addressFromPublicKey(publicKey);
}
