import { describe, expect, it } from 'vitest';
import { type Config, ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_KDF_LIMITS } from '../../src/custody/kdf-scheduler.ts';
import { DEFAULT_PASSWORD_THROTTLE } from '../../src/custody/password-throttle.ts';

/** Each setting: its variable, where the configuration holds it, its default, a value to set, what that reads as. */
const SETTINGS: [variable: string, path: string, byDefault: unknown, set: string, reads: unknown][] = [
  ['PASSWORD_MAX_FAILURES_PER_ADDRESS', 'passwordThrottle.maxFailuresPerAddress', 5, '3', 3],
  ['PASSWORD_MAX_FAILURES_PER_USER', 'passwordThrottle.maxFailuresPerUser', 20, '9', 9],
  ['PASSWORD_FAILURE_WINDOW_SECONDS', 'passwordThrottle.windowSeconds', 900, '120', 120],
  ['PASSWORD_LOCKOUT_SECONDS', 'passwordThrottle.lockoutSeconds', 60, '30', 30],
  ['PASSWORD_LOCKOUT_MAX_SECONDS', 'passwordThrottle.maxLockoutSeconds', 3600, '600', 600],
  ['KDF_CONCURRENCY', 'kdf.concurrency', 2, '1', 1],
  ['KDF_MAX_QUEUED_PER_USER', 'kdf.maxQueuedPerOwner', 32, '8', 8],
  ['KDF_ANONYMOUS_CONCURRENCY', 'kdf.anonymousConcurrency', 1, '1', 1],
  ['KDF_MAX_QUEUED_ANONYMOUS', 'kdf.maxQueuedAnonymous', 8, '3', 3],
  [
    'SIGN_IN_RATE_PER_CLIENT',
    'dashboard.signInRate',
    { requests: 10, seconds: 60 },
    '5/30',
    { requests: 5, seconds: 30 },
  ],
  [
    'SIGN_UP_RATE_PER_CLIENT',
    'dashboard.signUpRate',
    { requests: 10, seconds: 3600 },
    ' 2/86400 ',
    { requests: 2, seconds: 86_400 },
  ],
];

/** The value at a dotted path of the configuration. */
function settingAt(config: Config, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => Reflect.get(Object(at), key), config);
}

/** The fields of the password throttle and the KDF limits: each is a setting above, and they hold no other. */
const THROTTLE_AND_KDF_PATHS = SETTINGS.map(([, path]) => path).filter(
  (path) => !path.startsWith('dashboard.'),
);

/** The paths of the fields the configuration's password throttle and KDF limits hold. */
function throttleAndKdfPaths(config: Config): string[] {
  return [
    ...Object.keys(config.passwordThrottle).map((key) => `passwordThrottle.${key}`),
    ...Object.keys(config.kdf).map((key) => `kdf.${key}`),
  ];
}

describe('wrong-password and key-derivation settings', () => {
  it('defaults to 5 per address, 20 per user in 15 minutes, 1 minute doubling to 1 hour; 2 KDFs, 32 waiting, 1 and 8 anonymous', () => {
    const config = loadConfig({});
    for (const [variable, path, byDefault] of SETTINGS)
      expect(settingAt(config, path), variable).toEqual(byDefault);
    expect(throttleAndKdfPaths(config)).toEqual(THROTTLE_AND_KDF_PATHS);
    expect(config.passwordThrottle).toEqual(DEFAULT_PASSWORD_THROTTLE);
    expect(config.kdf).toEqual(DEFAULT_KDF_LIMITS);
  });

  it('reads every variable and names a bad one', () => {
    const config = loadConfig(Object.fromEntries(SETTINGS.map(([variable, , , set]) => [variable, set])));
    for (const [variable, path, , , reads] of SETTINGS)
      expect(settingAt(config, path), variable).toEqual(reads);
    expect(throttleAndKdfPaths(config)).toEqual(THROTTLE_AND_KDF_PATHS);
    for (const bad of ['10', '10/0', '0/60', '10 per 60', '1/86401'])
      expect(() => loadConfig({ SIGN_IN_RATE_PER_CLIENT: bad }), bad).toThrow(/SIGN_IN_RATE_PER_CLIENT/);
    expect(() => loadConfig({ KDF_CONCURRENCY: '2', KDF_ANONYMOUS_CONCURRENCY: '3' })).toThrow(
      /KDF_ANONYMOUS_CONCURRENCY: must be at most KDF_CONCURRENCY/,
    );
    expect(() => loadConfig({ PASSWORD_MAX_FAILURES_PER_ADDRESS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ KDF_CONCURRENCY: 'two' })).toThrow(/KDF_CONCURRENCY/);
    expect(() => loadConfig({ PASSWORD_LOCKOUT_SECONDS: '600', PASSWORD_LOCKOUT_MAX_SECONDS: '60' })).toThrow(
      /PASSWORD_LOCKOUT_MAX_SECONDS/,
    );
  });
});
