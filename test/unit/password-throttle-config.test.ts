import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_KDF_LIMITS } from '../../src/custody/kdf-scheduler.ts';
import { DEFAULT_PASSWORD_THROTTLE } from '../../src/custody/password-throttle.ts';

describe('wrong-password and key-derivation settings', () => {
  it('defaults to 5 per address, 20 per user in 15 minutes, 1 minute doubling to 1 hour; 2 KDFs, 32 waiting', () => {
    const config = loadConfig({});
    expect(config.passwordThrottle).toEqual({
      maxFailuresPerAddress: 5,
      maxFailuresPerUser: 20,
      windowSeconds: 900,
      lockoutSeconds: 60,
      maxLockoutSeconds: 3600,
    });
    expect(config.passwordThrottle).toEqual(DEFAULT_PASSWORD_THROTTLE);
    expect(config.kdf).toEqual({ concurrency: 2, maxQueuedPerOwner: 32 });
    expect(config.kdf).toEqual(DEFAULT_KDF_LIMITS);
  });

  it('reads every variable and names a bad one', () => {
    const config = loadConfig({
      PASSWORD_MAX_FAILURES_PER_ADDRESS: '3',
      PASSWORD_MAX_FAILURES_PER_USER: '9',
      PASSWORD_FAILURE_WINDOW_SECONDS: '120',
      PASSWORD_LOCKOUT_SECONDS: '30',
      PASSWORD_LOCKOUT_MAX_SECONDS: '600',
      KDF_CONCURRENCY: '1',
      KDF_MAX_QUEUED_PER_USER: '8',
    });
    expect(config.passwordThrottle).toEqual({
      maxFailuresPerAddress: 3,
      maxFailuresPerUser: 9,
      windowSeconds: 120,
      lockoutSeconds: 30,
      maxLockoutSeconds: 600,
    });
    expect(config.kdf).toEqual({ concurrency: 1, maxQueuedPerOwner: 8 });
    expect(() => loadConfig({ PASSWORD_MAX_FAILURES_PER_ADDRESS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ KDF_CONCURRENCY: 'two' })).toThrow(/KDF_CONCURRENCY/);
    expect(() => loadConfig({ PASSWORD_LOCKOUT_SECONDS: '600', PASSWORD_LOCKOUT_MAX_SECONDS: '60' })).toThrow(
      /PASSWORD_LOCKOUT_MAX_SECONDS/,
    );
  });
});
