import { describe, expect, it } from 'vitest';
import { nextPeriodStart, periodStart } from '../../src/accounts/periods.ts';
import {
  generateToken,
  hashSecret,
  parseToken,
  secretMatches,
  storedHash,
} from '../../src/accounts/tokens.ts';
import { presentedToken } from '../../src/http/auth.ts';
import { scrubSecrets, scrubString } from '../../src/logger.ts';

describe('tokens', () => {
  it('round-trips id and secret and matches only the right secret', () => {
    const { id, token, secretHash } = generateToken();
    const parsed = parseToken(token);
    expect(parsed?.id).toBe(id);
    expect(secretMatches(parsed!.secret, storedHash(secretHash))).toBe(true);
    expect(secretMatches(`${parsed!.secret.slice(0, -1)}x`, storedHash(secretHash))).toBe(false);
    expect(secretHash).toBe(hashSecret(parsed!.secret));
    expect(secretHash).not.toContain(parsed!.secret);
  });

  it('rejects anything not shaped like a token', () => {
    for (const bad of [
      '',
      'swy_',
      'swy_abc_def',
      `swy_${'g'.repeat(12)}_${'a'.repeat(43)}`,
      `swy_${'A'.repeat(12)}_${'a'.repeat(43)}`,
      `swy_${'a'.repeat(12)}-${'a'.repeat(43)}`,
      `swy_${'a'.repeat(12)}_${'a'.repeat(42)}=`,
      `SWY_${'a'.repeat(12)}_${'a'.repeat(43)}`,
      `${generateToken().token}x`,
    ]) {
      expect(parseToken(bad)).toBeNull();
    }
  });
});

describe('quota periods', () => {
  const at = new Date('2026-12-31T23:59:59Z');
  it('start and end on UTC calendar boundaries', () => {
    expect(periodStart('day', at).toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(nextPeriodStart('day', at).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(periodStart('month', at).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(nextPeriodStart('month', at).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(periodStart('year', at).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(nextPeriodStart('year', at).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('log scrubbing', () => {
  it('redacts secret fields at any depth and secret-looking text anywhere', () => {
    const { token } = generateToken();
    const scrubbed = JSON.stringify(
      scrubSecrets({
        headers: { authorization: `Bearer ${token}` },
        body: {
          password: 'p',
          old_password: 'o',
          new_password: 'n',
          privatekey: 'k',
          list: [{ privateKey: 'k2' }],
        },
        note: `used ${token} and whsec_abcdefghijklmnop`,
        txid: 'a'.repeat(64),
      }),
    );
    for (const secret of [token, '"p"', '"o"', '"n"', '"k"', '"k2"', 'whsec_abcdefghijklmnop']) {
      expect(scrubbed).not.toContain(secret);
    }
    expect(scrubbed).toContain('a'.repeat(64));
    expect(scrubString('Authorization: Bearer abc.def')).toBe('Authorization: [redacted]');
  });
});

describe('the token in an Authorization header', () => {
  it('is read from the Bearer form in any case and spacing, or alone', () => {
    const token = generateToken().token;
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `  BEARER   ${token}  `, token, ` ${token} `])
      expect(presentedToken(header)).toBe(token);
  });

  it('is none when the header holds anything else', () => {
    for (const header of [undefined, '', '   ', 'Bearer a b', 'Basic a b', 'a b'])
      expect(presentedToken(header)).toBeNull();
  });
});
