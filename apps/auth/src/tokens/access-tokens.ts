import type { ActorClaim, TeamMembershipClaim } from '@platform/contracts';
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import type { KeyRing } from '../signing-keys/signing-keys.service';

export interface TokenSubject {
  sub: string;
  roles: string[];
  permissions: string[];
  user?: { id: string; email: string | null; name: string | null };
  scope: string;
  clientId: string;
  /** The API key exchanged for the token: named in `api_key_id`, and the token never outlives it. */
  apiKey?: { id: string; endsAt: Date | null };
  /** The caller's teams; omitted from the token when empty. */
  teams?: TeamMembershipClaim[];
  /** On a delegated token (RFC 8693): the service acting for `sub`. */
  act?: ActorClaim;
  /** The token lives no later than this (epoch seconds): a delegated token never outlives its subject token. */
  notAfter?: number;
  /** Narrows `aud` to one of the configured audiences. */
  audience?: string[];
}

export interface IssuedAccessToken {
  token: string;
  jti: string;
  exp: number;
  expiresIn: number;
}

/** Signs access tokens with the current key: every claim of spec 1's access-token table. */
export class AccessTokenIssuer {
  constructor(
    private readonly keys: KeyRing,
    private readonly options: { issuer: string; audience: string[]; ttlSeconds: number },
  ) {}

  /** The audiences every token names unless narrowed. */
  get audience(): readonly string[] {
    return this.options.audience;
  }

  /** How long a token lives at most. */
  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  issue(subject: TokenSubject): IssuedAccessToken {
    const now = Math.floor(Date.now() / 1000);
    const keyEnd = subject.apiKey?.endsAt ? Math.floor(subject.apiKey.endsAt.getTime() / 1000) : Infinity;
    const exp = Math.min(now + this.options.ttlSeconds, keyEnd, subject.notAfter ?? Infinity);
    const jti = randomUUID();
    const { kid, privateKey } = this.keys.signingKey();
    const token = jwt.sign(
      {
        sub: subject.sub,
        iss: this.options.issuer,
        aud: subject.audience ?? this.options.audience,
        iat: now,
        nbf: now,
        exp,
        jti,
        scope: subject.scope,
        roles: subject.roles,
        permissions: subject.permissions,
        ...(subject.user && { user: subject.user }),
        client_id: subject.clientId,
        ...(subject.apiKey && { api_key_id: subject.apiKey.id }),
        ...(subject.teams?.length && { teams: subject.teams }),
        ...(subject.act && { act: subject.act }),
      },
      privateKey,
      { algorithm: 'RS256', keyid: kid }, // jsonwebtoken adds `typ: JWT`
    );
    return { token, jti, exp, expiresIn: exp - now };
  }
}
