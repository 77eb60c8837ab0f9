/**
 * Applies one service's migrations: `tsx tools/scripts/migrate.ts <service>`. Creates the database
 * and the service's schema when missing. Used by `nx run <service>:migrate`, the boot command and
 * the Helm migration job.
 */
import { serviceDatabaseUrl } from '@platform/config';
import { DependencyUnavailableError, migrateDatabase } from '@platform/data';

const service = process.argv[2];
if (!service) {
  console.error('usage: migrate.ts <service>');
  process.exit(2);
}
const url = serviceDatabaseUrl(service, process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/platform');
migrateDatabase(service, url).then(
  () => console.log(`${service}: migrations applied`),
  (error: unknown) => {
    console.error(error instanceof DependencyUnavailableError ? error.message : String(error instanceof Error ? error.message : error));
    process.exit(1);
  },
);
