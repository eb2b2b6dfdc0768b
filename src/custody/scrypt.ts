import { scrypt } from 'node:crypto';
import { type KdfCaller, kdfScheduler } from './kdf-scheduler.ts';

export interface ScryptCost {
  n: number;
  r: number;
  p: number;
}

/** A 32-byte scrypt key of a password, derived on the thread pool in the caller's turn of the KDF scheduler. */
export function deriveKey(
  password: string,
  salt: Buffer,
  cost: ScryptCost,
  caller: KdfCaller,
): Promise<Buffer> {
  return kdfScheduler.run(caller, () => scryptKey(password, salt, cost));
}

function scryptKey(password: string, salt: Buffer, { n, r, p }: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128 * n * r bytes.
    scrypt(
      password.normalize('NFKC'),
      salt,
      32,
      { N: n, r, p, maxmem: 256 * n * r + 1_048_576 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}
