import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/password-hash.ts';
import { configSummary } from '../../src/config/summary.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { FULL_KDF_COST, kdfCostOf } from '../../src/custody/kdf-cost.ts';

// The test suite seals keys at a cheap cost; nothing but the suite may. The full cost of sealed keys is
// asserted by key-vault.test.ts, that of dashboard passwords here.
describe('KDF_COST', () => {
  it('is the full cost unless set: scrypt N=2^17 for wallet keys, N=2^16 for dashboard passwords', () => {
    const config = loadConfig({});
    expect(config.kdfCost).toBe('full');
    expect(kdfCostOf(config.kdfCost)).toEqual({
      sealedKeys: { n: 2 ** 17, r: 8, p: 1 },
      passwords: { n: 2 ** 16, r: 8, p: 1 },
    });
    expect(configSummary(config)).toContain(
      'key derivation: scrypt N=2^17 for wallet keys, N=2^16 for dashboard passwords',
    );
  });

  it('refuses the test cost outside NODE_ENV=test, and any cost it does not know', () => {
    for (const env of [{ KDF_COST: 'test' }, { KDF_COST: 'test', NODE_ENV: 'production' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/KDF_COST.*NODE_ENV=test/);
    }
    expect(() => loadConfig({ KDF_COST: 'cheap', NODE_ENV: 'test' })).toThrow(/KDF_COST/);
  });

  it('takes the test cost under NODE_ENV=test, and config check says so', () => {
    const config = loadConfig({ KDF_COST: 'test', NODE_ENV: 'test' });
    expect(kdfCostOf(config.kdfCost).sealedKeys.n).toBe(2 ** 10);
    expect(configSummary(config).find((line) => line.startsWith('key derivation:'))).toMatch(
      /^key derivation: TEST cost, never for real keys/,
    );
  });

  it('hashes a dashboard password at the full cost unless told otherwise', async () => {
    const hash = await hashPassword('correct horse battery staple', {});
    const { n, r, p } = FULL_KDF_COST.passwords;
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', String(Math.log2(n)), String(r), String(p)]);
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', '16', '8', '1']);
  });
});
