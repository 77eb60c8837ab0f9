import type { ActorClaim, TeamMembershipClaim } from '@platform/contracts';
import { JwksKeyResolver, TokenVerifier, type RevocationCheck } from '@platform/jwt';
import jwt from 'jsonwebtoken';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './local-server';

export interface TokenOptions {
  sub?: string;
  permissions?: string[];
  roles?: string[];
  audience?: string | string[];
  issuer?: string;
  expiresInSeconds?: number;
  notBeforeSeconds?: number;
  jti?: string;
  kid?: string;
  /** The teams the caller belongs to, with their role in each. */
  teams?: TeamMembershipClaim[];
  /** Makes a delegated token: the service acting for `sub`. */
  act?: ActorClaim;
}

/**
 * A stand-in for the auth service in other services' tests: a real RSA key, a real JWKS served
 * over HTTP on loopback, and real RS256 tokens with whatever permissions a test needs.
 */
export class TestIssuer {
  readonly issuer = 'http://auth.test';
  readonly audience = 'agent-platform';
  readonly kid = `test-${randomUUID()}`;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private server?: http.Server;
  jwksUri = '';

  constructor() {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  async start(): Promise<this> {
    const jwk = { ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: 'RS256' };
    this.server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    this.jwksUri = `${await listenLocally(this.server)}/.well-known/jwks.json`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A verifier that fetches this issuer's JWKS over HTTP, as a deployed service would. */
  verifier(revocations?: RevocationCheck): TokenVerifier {
    return new TokenVerifier({ keys: new JwksKeyResolver({ jwksUri: this.jwksUri }), issuer: this.issuer, audience: this.audience, revocations });
  }

  token(options: TokenOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const sub = options.sub ?? `user-${randomUUID()}`;
    return jwt.sign(
      {
        sub,
        iss: options.issuer ?? this.issuer,
        aud: options.audience ?? [this.audience],
        iat: now,
        nbf: now + (options.notBeforeSeconds ?? 0),
        exp: now + (options.expiresInSeconds ?? 3600),
        jti: options.jti ?? randomUUID(),
        scope: 'api',
        roles: options.roles ?? ['user'],
        permissions: options.permissions ?? [],
        user: { id: sub, email: `${sub}@example.test`, name: sub },
        client_id: 'test-client',
        ...(options.teams && { teams: options.teams }),
        ...(options.act && { act: options.act }),
      },
      this.privateKey,
      { algorithm: 'RS256', keyid: options.kid ?? this.kid },
    );
  }

  /** `Authorization` header value for a token with these permissions. */
  bearer(permissions: string[] = [], options: TokenOptions = {}): string {
    return `Bearer ${this.token({ ...options, permissions })}`;
  }
}
