import { KDF_COST_NAMES, type KdfCostName } from '../custody/kdf-cost.ts';
import { ConfigError } from './error.ts';
import { oneOf, type Setting } from './setting.ts';

const costName = oneOf(KDF_COST_NAMES);

/**
 * KDF_COST: `full` (the default) or `test`, a thousandth of the work for the test suite's many key
 * operations. `test` is refused unless NODE_ENV is `test`, so no gateway seals real keys weakly by a stray
 * setting; `config check` names the cost in force.
 */
export const kdfCostSetting: Setting<KdfCostName> = {
  default: 'full',
  meaning:
    'how hard wallet-key and dashboard-password derivations are: `full` (scrypt N=2^17 and 2^16); `test` (N=2^10, weak) only with NODE_ENV=test, for the test suite',
  read(env, name) {
    const value = costName(env[name] ?? 'full', name);
    if (value === 'test' && env['NODE_ENV'] !== 'test') {
      throw new ConfigError(name, '`test` seals keys weakly and is accepted only with NODE_ENV=test');
    }
    return value;
  },
};
