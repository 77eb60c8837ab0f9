import { publishRevocation } from '@platform/jwt';
import type { TeamMembershipClaim } from '@platform/contracts';
import { ApiError } from '@platform/http';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import { randomToken, sha256 } from '../crypto/opaque-tokens';
import type { AccessTokenIssuer } from './access-tokens';
import type { RefreshRow, RefreshTokenSink, RefreshTokensUnit, TokensRepository } from './tokens.repository';

export type { AccessTokenIssuer };

export const invalidGrant = (message: string) => new ApiError(401, 'authentication_error', 'invalid_grant', message);

export interface SessionUser {
  id: string;
  email: string | null;
  name: string | null;
  roles: string[];
  permissions: string[];
  /** The user's teams as the token carries them (read at every issue, so a change shows in the next token). */
  teams: TeamMembershipClaim[];
}

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scope: string;
  familyId: string;
}

interface SessionOptions {
  clientId: string;
  scope: string;
  provider?: string | null;
  familyId?: string;
  parentId?: string;
}

/**
 * Refresh tokens rotate on every use. The tokens of one login form a family: presenting a token
 * that was already used revokes the whole family (and its access tokens), because two parties now
 * hold it. The one exception is a grace window for a client racing itself (two tabs, a retried
 * request): within it, the newest used token may be exchanged again, but only while no token
 * issued after it has been used, so the window never revives an older token.
 */
export class RefreshTokens {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly redis: Redis,
    private readonly accessTokens: AccessTokenIssuer,
    private readonly audit: AuditLog,
    private readonly options: { ttlSeconds: number; graceSeconds: number },
  ) {}

  /** Issues an access token and a refresh token for a new or continuing session. */
  async issue(user: SessionUser, session: SessionOptions, sink: RefreshTokenSink = this.tokens): Promise<SessionTokens> {
    const access = this.accessTokens.issue({
      sub: user.id,
      roles: user.roles,
      permissions: user.permissions,
      user: { id: user.id, email: user.email, name: user.name },
      teams: user.teams,
      scope: session.scope,
      clientId: session.clientId,
    });
    const refreshToken = randomToken('rt');
    const familyId = session.familyId ?? randomUUID();
    await sink.insert({
      tokenHash: sha256(refreshToken),
      familyId,
      parentId: session.parentId ?? null,
      userId: user.id,
      clientId: session.clientId,
      scope: session.scope,
      provider: session.provider ?? null,
      accessJti: access.jti,
      accessExp: access.exp,
      expiresAt: new Date(Date.now() + this.options.ttlSeconds * 1000),
    });
    return { accessToken: access.token, refreshToken, expiresIn: access.expiresIn, scope: session.scope, familyId };
  }

  /** Exchanges a refresh token for new tokens, or refuses it (revoking the family on reuse). */
  async rotate(presented: string, origin: AuditOrigin): Promise<SessionTokens & { userId: string; provider: string | null }> {
    const tokenHash = sha256(presented);
    const outcome = await this.tokens.transaction(async (tx) => {
      // Row lock: two racing refreshes of one token are decided one after the other.
      const row = await tx.lockByHash(tokenHash);
      if (!row) return { kind: 'unknown' as const };
      if (row.revokedAt) return { kind: 'revoked' as const, row };
      if (row.expiresAt <= new Date()) return { kind: 'expired' as const, row };
      if (row.usedAt && !(await this.withinGrace(tx, row))) return { kind: 'reused' as const, row };
      const user = await tx.userWithTeams(row.userId);
      if (!user || user.disabled) return { kind: 'user_gone' as const, row };
      if (!row.usedAt) await tx.markUsed(row.id);
      const tokens = await this.issue(user, { clientId: row.clientId, scope: row.scope, provider: row.provider, familyId: row.familyId, parentId: row.id }, tx);
      return { kind: 'rotated' as const, row, tokens, graced: Boolean(row.usedAt) };
    });

    if (outcome.kind === 'rotated') {
      await this.audit.record({
        eventType: 'token_refreshed',
        userId: outcome.row.userId,
        clientId: outcome.row.clientId,
        ...origin,
        metadata: { familyId: outcome.row.familyId, withinGraceWindow: outcome.graced },
      });
      return { ...outcome.tokens, userId: outcome.row.userId, provider: outcome.row.provider };
    }
    if (outcome.kind === 'reused') {
      await this.revokeFamily(outcome.row.familyId);
      await this.audit.record({
        eventType: 'refresh_token_reuse_detected',
        userId: outcome.row.userId,
        clientId: outcome.row.clientId,
        ...origin,
        metadata: { familyId: outcome.row.familyId },
      });
      throw invalidGrant('The refresh token was already used; the session has been revoked');
    }
    await this.audit.record({
      eventType: 'refresh_failure',
      userId: outcome.kind === 'unknown' ? null : outcome.row.userId,
      ...origin,
      metadata: { reason: outcome.kind },
    });
    throw invalidGrant(outcome.kind === 'expired' ? 'The refresh token has expired' : 'The refresh token is not valid');
  }

  /** Revokes every refresh token of a family and every access token issued with them. */
  async revokeFamily(familyId: string): Promise<void> {
    const now = new Date();
    const members = await this.tokens.revokeFamily(familyId, now);
    await Promise.all(members.map((member) => publishRevocation(this.redis, member.accessJti, member.accessExp)));
  }

  /** The family of a presented refresh token, for /revoke; undefined when the token is unknown. */
  async findByToken(presented: string) {
    return this.tokens.findByHash(sha256(presented));
  }

  private async withinGrace(tx: RefreshTokensUnit, row: RefreshRow): Promise<boolean> {
    if (!row.usedAt || Date.now() - row.usedAt.getTime() > this.options.graceSeconds * 1000) return false;
    return !(await tx.hasUsedChild(row.id));
  }
}
