import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { authTestDatabaseUrl } from './database';

/**
 * Migrates the suite's database with the platform's migrate tool (jest's global setup sees no
 * path aliases) and starts it with no signing keys, so rotations start from one key.
 */
export default async function globalSetup(): Promise<void> {
  const url = authTestDatabaseUrl();
  const root = path.join(__dirname, '../../..');
  execFileSync(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), 'tools/scripts/migrate.ts', 'auth'], {
    cwd: root,
    env: { ...process.env, AUTH_DATABASE_URL: url },
    stdio: 'pipe',
  });
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query('DELETE FROM auth."SigningKey"');
  await client.end();
}
