import type { BinaryLike, ScryptOptions } from 'node:crypto';
import { CHAIN_NAMES, NETWORKS } from '../../src/chains/types.ts';

/** Nothing listens on the discard port: node calls fail at once. */
const DEAD_NODE = 'http://127.0.0.1:9';

/** Gateway settings under which every chain's node is unreachable and fails without retrying. */
export const OFFLINE_NODES_ENV: Record<string, string> = {
  ...Object.fromEntries(
    CHAIN_NAMES.flatMap((chain) =>
      NETWORKS.map((net) => [`${chain.toUpperCase()}_${net.toUpperCase()}_URLS`, DEAD_NODE]),
    ),
  ),
  NODE_RETRIES: '0',
  NODE_TIMEOUT_MS: '1000',
  PRICE_PROVIDERS: 'local',
};

/**
 * `node:crypto` with the stored-key scrypt (N = 2^17, about a second of CPU on a small machine) lowered
 * to N = 2^10, for suites about input handling; `vi.mock('node:crypto', cheapScrypt)`. Imported
 * keystores keep the parameters sent.
 */
export async function cheapScrypt(importOriginal: () => Promise<typeof import('node:crypto')>) {
  const crypto = await importOriginal();
  const scrypt = (
    password: BinaryLike,
    salt: BinaryLike,
    length: number,
    options: ScryptOptions,
    done: (error: Error | null, key: Buffer) => void,
  ) =>
    crypto.scrypt(password, salt, length, options.N === 2 ** 17 ? { ...options, N: 2 ** 10 } : options, done);
  return { ...crypto, default: { ...crypto, scrypt }, scrypt };
}
