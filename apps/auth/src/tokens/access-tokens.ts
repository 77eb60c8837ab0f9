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

  /** How long a token lives at most. */
  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  issue(subject: TokenSubject): IssuedAccessToken {
    const now = Math.floor(Date.now() / 1000);
    const keyEnd = subject.apiKey?.endsAt ? Math.floor(subject.apiKey.endsAt.getTime() / 1000) : Infinity;
    const exp = Math.min(now + this.options.ttlSeconds, keyEnd);
    const jti = randomUUID();
    const { kid, privateKey } = this.keys.signingKey();
    const token = jwt.sign(
      {
        sub: subject.sub,
        iss: this.options.issuer,
        aud: this.options.audience,
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
      },
      privateKey,
      { algorithm: 'RS256', keyid: kid }, // jsonwebtoken adds `typ: JWT`
    );
    return { token, jti, exp, expiresIn: exp - now };
  }
}
