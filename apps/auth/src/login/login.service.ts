import { ApiError, tooManyRequests } from '@platform/http';
import { endOf, type ApiKeys } from '../api-keys/api-keys.service';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import { decoyPasswordHash, verifyPassword, type PasswordWork } from '../crypto/passwords';
import type { Teams } from '../teams/teams.service';
import type { AccessTokenIssuer } from '../tokens/tokens.service';
import type { RefreshTokens } from '../tokens/tokens.service';
import type { Users } from '../users/users.service';
import type { AccountLockout } from './account-lockout';

const PASSWORD_SCOPE = 'api';
/** One answer for an unknown user, a wrong password and a disabled account. */
const invalidCredentials = () => new ApiError(401, 'authentication_error', 'invalid_credentials', 'Invalid username or password');

export class Login {
  constructor(
    private readonly users: Users,
    private readonly apiKeys: ApiKeys,
    private readonly lockout: AccountLockout,
    private readonly refreshTokens: RefreshTokens,
    private readonly accessTokens: AccessTokenIssuer,
    private readonly audit: AuditLog,
    private readonly passwords: PasswordWork,
    private readonly teams: Teams,
  ) {}

  /**
   * A password login. Only the lockout reservation and the scrypt verification hold a password-work
   * slot (past the queue: 503, before the attempt counts against the account); the Postgres work
   * before and after runs outside it, so a database that stops answering fails each login on its
   * own (503 within the query deadline) instead of holding the slots while every other login waits.
   */
  async withPassword(input: { username: string; password: string; client_id: string }, origin: AuditOrigin) {
    const user = await this.users.findByUsername(input.username);
    const verdict = await this.passwords.run(async () => {
      const reservation = await this.lockout.reserve(input.username);
      if (!reservation.allowed) return { locked: true as const, retryAfterSeconds: reservation.retryAfterSeconds };
      return { locked: false as const, genuine: await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash())) };
    });
    if (verdict.locked) {
      await this.audit.record({ eventType: 'login_locked', clientId: input.client_id, ...origin, metadata: { username: input.username } });
      throw tooManyRequests('Too many failed attempts; try again later', verdict.retryAfterSeconds);
    }
    if (!user || !user.passwordHash || !verdict.genuine || user.disabled) {
      await this.audit.record({
        eventType: 'login_failure',
        userId: user?.id ?? null,
        clientId: input.client_id,
        ...origin,
        metadata: { username: input.username },
      });
      throw invalidCredentials();
    }
    await this.lockout.reset(input.username);
    const tokens = await this.refreshTokens.issue({ ...user, teams: await this.teams.claimsOf(user.id) }, { clientId: input.client_id, scope: PASSWORD_SCOPE });
    await this.users.markLoggedIn(user.id);
    await this.audit.record({ eventType: 'login_success', userId: user.id, clientId: input.client_id, ...origin, metadata: { method: 'password' } });
    return {
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_type: 'Bearer' as const,
      expires_in: tokens.expiresIn,
      scope: tokens.scope,
    };
  }

  async withApiKey(input: { api_key: string; client_id: string }, origin: AuditOrigin) {
    const key = await this.apiKeys.authenticate(input.api_key);
    if (!key) {
      await this.audit.record({ eventType: 'api_key_login_failure', clientId: input.client_id, ...origin });
      throw new ApiError(401, 'authentication_error', 'invalid_credentials', 'Invalid API key');
    }
    const access = this.accessTokens.issue({
      sub: `service:${key.service}`,
      roles: ['service'],
      permissions: key.permissions,
      scope: 'api',
      clientId: input.client_id,
      apiKey: { id: key.id, endsAt: endOf(key) },
    });
    await this.audit.record({
      eventType: 'api_key_login_success',
      userId: `service:${key.service}`,
      clientId: input.client_id,
      ...origin,
      metadata: { apiKeyId: key.id },
    });
    return { access_token: access.token, token_type: 'Bearer' as const, expires_in: access.expiresIn, service: key.service, permissions: key.permissions };
  }
}
