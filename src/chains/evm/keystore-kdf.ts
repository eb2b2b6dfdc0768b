/**
 * Key derivation for Web3 Secret Storage keystores: scrypt and PBKDF2-HMAC-SHA256. Node's crypto runs
 * them on the libuv thread pool, off the event loop; OpenSSL's scrypt refuses some legal parameter sets
 * (N >= 2^(16 r), e.g. the specification's own test vector N=2^18 r=1), and those fall back to
 * @noble/hashes' async scrypt, which yields to the event loop every few milliseconds. Either way the work
 * waits its turn on the KDF scheduler, which shares the pool fairly between users.
 *
 * Imported files are untrusted: their parameters are bounded so a crafted keystore cannot take gigabytes
 * of memory or minutes of CPU.
 */
import { pbkdf2 as nodePbkdf2, scrypt as nodeScrypt } from 'node:crypto';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { type KdfCaller, kdfScheduler } from '../../custody/kdf-scheduler.ts';
import { EvmInputError } from './errors.ts';

export interface ScryptParams {
  kdf: 'scrypt';
  n: number;
  r: number;
  p: number;
  dklen: number;
  salt: Uint8Array;
}

export interface Pbkdf2Params {
  kdf: 'pbkdf2';
  c: number;
  dklen: number;
  salt: Uint8Array;
}

export type KdfParams = ScryptParams | Pbkdf2Params;

/** 256 MiB: geth's "standard" scrypt (N=2^18, r=8) and nothing heavier. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
/** Twice the N·r·p of geth's standard parameters and of the specification's test vector. */
const MAX_SCRYPT_WORK = 2 ** 22;
/** Ten times the 262144 rounds geth and the specification use. */
const MAX_PBKDF2_ROUNDS = 2_621_440;

/** @throws EvmInputError naming the parameter out of bounds. */
export function checkKdfParams(params: KdfParams): void {
  if (params.dklen !== 32) throw new EvmInputError('keystore dklen must be 32');
  if (params.salt.length < 16 || params.salt.length > 64)
    throw new EvmInputError('keystore salt must be 16 to 64 bytes');
  if (params.kdf === 'pbkdf2') {
    if (!Number.isInteger(params.c) || params.c < 1 || params.c > MAX_PBKDF2_ROUNDS) {
      throw new EvmInputError(`keystore pbkdf2 rounds must be 1 to ${MAX_PBKDF2_ROUNDS}`);
    }
    return;
  }
  const { n, r, p } = params;
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0)
    throw new EvmInputError('keystore scrypt n must be a power of two');
  if (!Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1) {
    throw new EvmInputError('keystore scrypt r and p must be positive whole numbers');
  }
  if (128 * n * r > MAX_SCRYPT_MEMORY || n * r * p > MAX_SCRYPT_WORK) {
    throw new EvmInputError('keystore scrypt parameters are too expensive to open here');
  }
}

/** Checks the parameters at once (a bad file never waits in line), then derives on the caller's turn. */
export async function deriveKey(
  password: Uint8Array,
  params: KdfParams,
  caller: KdfCaller = {},
): Promise<Uint8Array> {
  checkKdfParams(params);
  return kdfScheduler.run(caller, () => derive(password, params));
}

async function derive(password: Uint8Array, params: KdfParams): Promise<Uint8Array> {
  if (params.kdf === 'pbkdf2') {
    return new Promise((resolve, reject) => {
      nodePbkdf2(password, params.salt, params.c, params.dklen, 'sha256', (error, key) =>
        error ? reject(error) : resolve(new Uint8Array(key)),
      );
    });
  }
  try {
    return await opensslScrypt(password, params);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS') throw error;
    return scryptAsync(password, params.salt, {
      N: params.n,
      r: params.r,
      p: params.p,
      dkLen: params.dklen,
      maxmem: 2 * MAX_SCRYPT_MEMORY,
    });
  }
}

function opensslScrypt(password: Uint8Array, params: ScryptParams): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    try {
      nodeScrypt(
        password,
        params.salt,
        params.dklen,
        // maxmem must exceed 128·N·r (plus the p blocks); OpenSSL refuses anything above it.
        {
          N: params.n,
          r: params.r,
          p: params.p,
          maxmem: 129 * params.n * params.r + 128 * params.r * params.p + 1_048_576,
        },
        (error, key) => (error ? reject(error) : resolve(new Uint8Array(key))),
      );
    } catch (error) {
      reject(error);
    }
  });
}
