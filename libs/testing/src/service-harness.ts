import type { TokenVerifier } from '@platform/jwt';
import { startService, type ServiceDefinition, type ServiceParts } from '@platform/service-kit';
import type { z } from 'zod';
import { testDatabaseUrl, testRedisUrl, uniqueName } from './environment';
import { TestIssuer, type TokenOptions } from './test-issuer';

export interface TestServiceOptions {
  /** Env over the test defaults (`PORT=0`, silent logs, the test Postgres and Redis). */
  env?: Record<string, string | undefined>;
  /** An issuer to share between services; by default each service gets its own, stopped with it. */
  issuer?: TestIssuer;
  /** Replaces the issuer's verifier (for example with revocations). */
  verifier?: TokenVerifier;
}

export type TestService<S extends z.ZodRawShape, D, P extends ServiceParts> = Awaited<ReturnType<typeof startService<S, D, P>>> & {
  issuer: TestIssuer;
  /** A caller with its own `sub`: its `Authorization` header value with these permissions. */
  user: (permissions?: string[], options?: TokenOptions) => { sub: string; auth: string };
};

/**
 * Boots a service in-process through `startService`, as `runService` would, against the
 * machine's real Postgres and Redis, with a real RS256 issuer on loopback in place of `auth`.
 * Test env: `PORT=0`, `LOG_LEVEL` from `TEST_LOG_LEVEL` (default silent), no `process.env`
 * besides `TEST_DATABASE_URL`-style defaults of `@platform/testing`.
 */
export async function startTestService<S extends z.ZodRawShape, D, P extends ServiceParts>(
  definition: ServiceDefinition<S, D, P>,
  options: TestServiceOptions = {},
): Promise<TestService<S, D, P>> {
  const issuer = options.issuer ?? (await new TestIssuer().start());
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: testDatabaseUrl,
    REDIS_URL: testRedisUrl,
    ...options.env,
  };
  let service: Awaited<ReturnType<typeof startService<S, D, P>>>;
  try {
    service = await startService(definition, { env, verifier: options.verifier ?? issuer.verifier(), isolated: true });
  } catch (error) {
    if (!options.issuer) await issuer.stop();
    throw error;
  }
  const stop = service.stop;
  return Object.assign(service, {
    issuer,
    user: (permissions: string[] = [], tokenOptions: TokenOptions = {}) => {
      const sub = tokenOptions.sub ?? uniqueName('user');
      return { sub, auth: issuer.bearer(permissions, { ...tokenOptions, sub }) };
    },
    stop: async () => {
      await stop();
      if (!options.issuer) await issuer.stop();
    },
  });
}
