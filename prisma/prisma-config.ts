import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type QueryResult } from 'pg';

/**
 * One Prisma CLI configuration per service: its own schema file, its own migrations folder and its
 * own Postgres schema. The schema engine runs as WebAssembly through the pg adapter so that
 * `migrate deploy` works on machines without internet.
 */
const PG_NAME_OID = 19;
const PG_TEXT_OID = 25;

/** Works around prisma/orm#27403: the js schema engine cannot decode columns of type `name`. */
class NameAsTextPool extends Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    if (!result || typeof result.then !== 'function') return result;
    return result.then((res: QueryResult) => {
      for (const field of res?.fields ?? []) if (field.dataTypeID === PG_NAME_OID) field.dataTypeID = PG_TEXT_OID;
      return res;
    });
  }
}

export function serviceDatabaseUrl(service: string): string {
  const specific = process.env[`${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`];
  return specific ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/platform';
}

export function servicePrismaConfig(service: string) {
  // The schema file reads DATABASE_URL; it must resolve even for commands that never connect.
  process.env.DATABASE_URL ??= serviceDatabaseUrl(service);
  return defineConfig({
    engine: 'js',
    experimental: { adapter: true },
    schema: path.join(__dirname, service, 'schema.prisma'),
    migrations: { path: path.join(__dirname, service, 'migrations') },
    async adapter() {
      // Prisma keeps its migration history in the first schema of the search path.
      const pool = new NameAsTextPool({ connectionString: serviceDatabaseUrl(service), options: `-c search_path=${service}` });
      return new PrismaPg(pool, { schema: service });
    },
  });
}
