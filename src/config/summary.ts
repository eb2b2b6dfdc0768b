import type { Config } from '../config.ts';
import { describeKdfCost } from '../custody/kdf-cost.ts';

/** Where the database is, without user or password: `postgres at db:5432/switchyard`, `sqlite at /x.db`. */
export function describeDatabase(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return `sqlite at ${databaseUrl.slice('sqlite:'.length)}`;
  try {
    const url = new URL(databaseUrl);
    return `postgres at ${url.host}${url.pathname}`;
  } catch {
    return 'postgres (unparseable URL)';
  }
}

/** What `config check` prints for a good configuration: where things are and what runs, never a secret. */
export function configSummary(config: Config): string[] {
  const roles = Object.entries(config.roles)
    .filter(([, on]) => on)
    .map(([role]) => role);
  const nodes = Object.entries(config.endpoints).flatMap(([chain, networks]) =>
    Object.keys(networks ?? {}).map((network) => `${chain} ${network}`),
  );
  return [
    `database: ${describeDatabase(config.databaseUrl)}`,
    `roles: ${roles.join(', ')}`,
    `API: ${config.roles.api ? `${config.host}:${config.port}` : 'not served (ROLES)'}`,
    `metrics: ${config.metrics ? `${config.metrics.host}:${config.metrics.port}` : 'off'}`,
    config.sandbox
      ? "node endpoints: the sandbox's devnets"
      : `node endpoints set for: ${nodes.length > 0 ? nodes.join(', ') : 'none'} (other chains use their public nodes)`,
    `key derivation: ${describeKdfCost(config.kdfCost)}`,
    `master key: ${config.masterKey === undefined ? `${config.dataDir}/master.key` : 'MASTER_KEY'}`,
    `plans: ${config.plans.map((p) => p.name).join(', ')} (new users: ${config.defaultPlan})`,
  ];
}
