import { JwksKeyResolver, RedisRevocationList, TokenVerifier } from '@platform/jwt';
import type { Redis } from 'ioredis';

export interface AuthenticationEnv {
  AUTH_URL: string;
  AUTH_ISSUER?: string;
  AUTH_AUDIENCE: string;
}

/**
 * The verifier every service but `auth` uses: JWKS from `<AUTH_URL>/.well-known/jwks.json`,
 * issuer `AUTH_ISSUER` (default `AUTH_URL`), audience `AUTH_AUDIENCE`, revocations from Redis.
 */
export async function createTokenVerifier(env: AuthenticationEnv, redis: Redis) {
  const revocations = new RedisRevocationList(redis);
  await revocations.start();
  const verifier = new TokenVerifier({
    keys: new JwksKeyResolver({ jwksUri: new URL('/.well-known/jwks.json', env.AUTH_URL).toString() }),
    issuer: env.AUTH_ISSUER ?? env.AUTH_URL.replace(/\/$/, ''),
    audience: env.AUTH_AUDIENCE,
    revocations,
  });
  return { verifier, revocations };
}
