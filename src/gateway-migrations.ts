import { LIGHT_FAMILY_MIGRATIONS } from './chains/family-settings.ts';
import { type Migrations, migrationList, sharedMigrations } from './store/migrations/index.ts';

/**
 * Every migration the gateway runs: the shared tables' and each family's own (`FamilyModule.migrations`,
 * read from the light table so the admin commands that migrate load no family), in name order, as they
 * always ran.
 */
export const GATEWAY_MIGRATIONS: Migrations = migrationList(sharedMigrations, ...LIGHT_FAMILY_MIGRATIONS);
