import type { AccessTokenClaims } from '@platform/contracts';
import { hasPermission, publishRevocation, type TokenVerifier } from '@platform/jwt';
import type { Redis } from 'ioredis';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import type { RefreshTokens } from './tokens.service';

/**
 * RFC 7009 revocation: the caller may revoke its own tokens (an admin, anyone's). The answer is
 * the same for an unknown token and for someone else's, so it reveals nothing.
 */
export class Revocation {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly refreshTokens: RefreshTokens,
    private readonly audit: AuditLog,
    private readonly redis: Redis,
  ) {}

  async revoke(token: string, hint: string | undefined, caller: AccessTokenClaims, origin: AuditOrigin) {
    const revokedAt = new Date().toISOString();
    const mayRevoke = (owner: string) => owner === caller.sub || hasPermission(caller.permissions, 'auth:admin');
    const looksLikeJwt = token.split('.').length === 3;
    if (hint !== 'refresh_token' && looksLikeJwt) {
      const claims = await this.verifier.verify(token).catch(() => undefined);
      if (claims && mayRevoke(claims.sub)) {
        await publishRevocation(this.redis, claims.jti, claims.exp);
        await this.audit.record({
          eventType: 'token_revoked',
          userId: claims.sub,
          clientId: claims.client_id,
          ...origin,
          metadata: { jti: claims.jti, tokenType: 'access_token', by: caller.sub },
        });
        return { revoked: true, jti: claims.jti, revokedAt };
      }
      return { revoked: true, jti: null, revokedAt };
    }
    const refresh = await this.refreshTokens.findByToken(token);
    if (refresh && mayRevoke(refresh.userId)) {
      await this.refreshTokens.revokeFamily(refresh.familyId);
      await this.audit.record({
        eventType: 'token_revoked',
        userId: refresh.userId,
        ...origin,
        metadata: { familyId: refresh.familyId, tokenType: 'refresh_token', by: caller.sub },
      });
    }
    return { revoked: true, jti: null, revokedAt };
  }
}
