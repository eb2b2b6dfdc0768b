import { FAMILIES } from './chains/families.ts';
import { type Migrations, migrationList, sharedMigrations } from './store/migrations/index.ts';

/**
 * Every migration the gateway runs: the shared tables' and each family's own (`FamilyModule.migrations`),
 * in name order, as they always ran.
 */
export const GATEWAY_MIGRATIONS: Migrations = migrationList(
  sharedMigrations,
  ...FAMILIES.map((family) => family.migrations ?? {}),
);
