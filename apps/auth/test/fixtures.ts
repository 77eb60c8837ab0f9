import { startTestService } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { authService } from '../src/service';
import { authTestDatabaseUrl } from './database';

export const ADMIN = { username: `admin-${process.pid}`, password: 'bootstrap-admin-password' };

/** A unique client address per test, so rate-limit counters never leak between tests. */
export function clientIp(): string {
  const bytes = randomUUID()
    .replace(/-/g, '')
    .slice(0, 6)
    .match(/../g)!
    .map((hex) => parseInt(hex, 16));
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

/** The real auth service (through the shared test harness) on the suite's database and the machine's Redis, with generous limits. */
export async function startAuth(overrides: Record<string, string> = {}) {
  // The api role: the tests that rotate on schedule run their own rotation worker.
  const started = await startTestService(authService, {
    env: {
      SERVICE_ROLE: 'api',
      DATABASE_URL: authTestDatabaseUrl(),
      MIGRATE_ON_START: 'false', // test/global-setup.ts migrated the suite's database
      AUTH_PUBLIC_URL: 'http://auth.test',
      AUTH_ADMIN_USERNAME: ADMIN.username,
      AUTH_ADMIN_PASSWORD: ADMIN.password,
      AUTH_LOGIN_RATE_LIMIT: '1000',
      AUTH_REFRESH_RATE_LIMIT: '1000',
      AUTH_VALIDATE_RATE_LIMIT: '10000',
      AUTH_KEY_PREPUBLISH: '0',
      ...overrides,
    },
  });
  const { config, db, redis } = started.infra;
  const service = { app: started.app, keys: started.parts.keys, audit: started.parts.audit };
  const ip = clientIp();
  const http = () => ({
    get: (path: string) => request(service.app).get(path).set('X-Forwarded-For', ip),
    post: (path: string) => request(service.app).post(path).set('X-Forwarded-For', ip),
    put: (path: string) => request(service.app).put(path).set('X-Forwarded-For', ip),
    delete: (path: string) => request(service.app).delete(path).set('X-Forwarded-For', ip),
  });

  async function login(username: string, password: string) {
    const res = await http().post('/api/v1/auth/login').send({ username, password, client_id: 'test-client', grant_type: 'password' });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { access_token: string; refresh_token: string; expires_in: number; scope: string };
  }

  let adminToken: string | undefined;
  const admin = async () => (adminToken ??= (await login(ADMIN.username, ADMIN.password)).access_token);

  /** A new user with a password, created through the admin API. */
  async function createUser(permissions: string[] = [], roles = ['user']) {
    const user = { username: `u-${randomUUID().slice(0, 12)}`, password: `pw-${randomUUID()}` };
    const res = await http()
      .post('/api/v1/auth/admin/users')
      .set('Authorization', `Bearer ${await admin()}`)
      .send({ ...user, roles, permissions });
    if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { ...user, id: res.body.id as string };
  }

  /** A service API key with these permissions, exchanged for its token. */
  async function serviceToken(service: string, permissions: string[]) {
    const issued = await http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', `Bearer ${await admin()}`)
      .send({ service, permissions });
    if (issued.status !== 201) throw new Error(`issue key failed: ${issued.status} ${JSON.stringify(issued.body)}`);
    const res = await http().post('/api/v1/auth/api-key').send({ api_key: issued.body.key, client_id: service });
    if (res.status !== 200) throw new Error(`api-key login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: issued.body.id as string, key: issued.body.key as string, token: res.body.access_token as string };
  }

  return {
    config,
    db,
    /** The service's own URL (it listens on loopback), for clients that call it over HTTP. */
    url: started.url,
    redis,
    service,
    http,
    login,
    admin,
    createUser,
    serviceToken,
    close: () => started.stop(),
  };
}

export type AuthHarness = Awaited<ReturnType<typeof startAuth>>;
