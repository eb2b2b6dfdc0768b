import type { ScryptCost } from './scrypt.ts';

/**
 * How hard the gateway's own password derivations are: sealed wallet keys (128 MiB a guess, the OWASP
 * floor) and dashboard passwords (64 MiB). The cost travels with what it derived, so a key or hash made at
 * one cost opens under any other: only new ones follow the setting.
 */
export interface KdfCost {
  sealedKeys: ScryptCost;
  passwords: ScryptCost;
}

export const KDF_COST_NAMES = ['full', 'test'] as const;
export type KdfCostName = (typeof KDF_COST_NAMES)[number];

export const FULL_KDF_COST: KdfCost = {
  sealedKeys: { n: 2 ** 17, r: 8, p: 1 },
  passwords: { n: 2 ** 16, r: 8, p: 1 },
};

/**
 * For the test suite only (KDF_COST=test, accepted with NODE_ENV=test): 1 MiB, about a millisecond, for
 * the many tests that seal and open keys without being about the derivation. Keys sealed this way are
 * weak; the configuration refuses it anywhere else.
 */
export const TEST_KDF_COST: KdfCost = {
  sealedKeys: { n: 2 ** 10, r: 8, p: 1 },
  passwords: { n: 2 ** 10, r: 8, p: 1 },
};

export function kdfCostOf(name: KdfCostName): KdfCost {
  return name === 'test' ? TEST_KDF_COST : FULL_KDF_COST;
}

/** `config check`'s words for a cost. */
export function describeKdfCost(name: KdfCostName): string {
  const { sealedKeys, passwords } = kdfCostOf(name);
  const costs = `scrypt N=2^${Math.log2(sealedKeys.n)} for wallet keys, N=2^${Math.log2(passwords.n)} for dashboard passwords`;
  return name === 'test' ? `TEST cost, never for real keys (${costs})` : costs;
}
