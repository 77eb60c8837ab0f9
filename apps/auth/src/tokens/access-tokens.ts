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

  issue(subject: TokenSubject): IssuedAccessToken {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + this.options.ttlSeconds;
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
      },
      privateKey,
      { algorithm: 'RS256', keyid: kid }, // jsonwebtoken adds `typ: JWT`
    );
    return { token, jti, exp, expiresIn: this.options.ttlSeconds };
  }
}
