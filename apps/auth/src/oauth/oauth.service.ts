import { badRequest, notFound } from '@platform/http';
import { randomBytes } from 'node:crypto';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import type { AuthConfig } from '../service';
import { pkceChallenge } from '../crypto/opaque-tokens';
import type { SecretBox } from '../crypto/secret-box';
import type { Teams } from '../teams/teams.service';
import { invalidGrant, type RefreshTokens } from '../tokens/tokens.service';
import type { OAuthRepository } from './oauth.repository';
import { oauthError, type IdpClient, type IdpIdentity, type IdpTokens } from './idp-client';
import type { OAuthProviders, ProviderConfig } from './providers';
import { isAllowedRedirectUri } from './redirect-uris';
import { mapGroups } from './role-mapping';

const DEFAULT_CLIENT_ID = 'platform-web';
const IDP_TOKEN_DEFAULT_TTL = 7200;

interface AuthorizeInput {
  provider: string;
  redirect_uri?: string;
  client_id?: string;
  state?: string;
  code_challenge: string;
  code_challenge_method: string;
  scope?: string;
}

interface TokenInput {
  code: string;
  redirect_uri: string;
  client_id: string;
  code_verifier: string;
  state?: string;
}

/**
 * Authorization code with PKCE S256 against an external identity provider. The platform keeps
 * each authorization request (state, challenge, exact redirect URI) until its code is exchanged
 * once; the verifier sent with the code must hash to a stored challenge.
 */
export class OAuthFlow {
  constructor(
    private readonly store: OAuthRepository,
    private readonly providers: OAuthProviders,
    private readonly idp: IdpClient,
    private readonly refreshTokens: RefreshTokens,
    private readonly box: SecretBox,
    private readonly audit: AuditLog,
    private readonly config: AuthConfig,
    private readonly teams: Teams,
  ) {}

  private async provider(name: string): Promise<ProviderConfig> {
    const provider = await this.providers.find(name);
    if (!provider) throw notFound(`No identity provider named ${name} is configured`);
    return provider;
  }

  private redirectAllowed(provider: ProviderConfig, uri: string): boolean {
    return isAllowedRedirectUri(uri, [provider.callbackUrl, ...this.config.AUTH_OAUTH_REDIRECT_URIS], this.config.AUTH_OAUTH_ALLOW_DEV_CALLBACK);
  }

  /** Records the request and returns the identity provider's authorization URL. */
  async authorize(input: AuthorizeInput, origin: AuditOrigin): Promise<string> {
    if (input.code_challenge_method !== 'S256')
      throw badRequest('Only the S256 code challenge method is accepted', { code_challenge_method: input.code_challenge_method });
    const provider = await this.provider(input.provider);
    const redirectUri = input.redirect_uri ?? provider.callbackUrl;
    if (!this.redirectAllowed(provider, redirectUri)) throw oauthError(400, 'redirect_uri_mismatch', 'The redirect URI is not registered');
    const state = input.state ?? randomBytes(32).toString('base64url');
    const scope = input.scope ?? provider.scopes.join(' ');
    const recorded = await this.store.createAuthorization({
      state,
      provider: provider.name,
      clientId: input.client_id ?? DEFAULT_CLIENT_ID,
      redirectUri,
      codeChallenge: input.code_challenge,
      scope,
      expiresAt: new Date(Date.now() + this.config.AUTH_OAUTH_STATE_TTL * 1000),
    });
    if (!recorded) throw badRequest('The state or code challenge was already used; make new ones for every request');
    await this.audit.record({ eventType: 'oauth_authorize', clientId: input.client_id ?? DEFAULT_CLIENT_ID, ...origin, metadata: { provider: provider.name } });
    const url = new URL(provider.authorizationUrl);
    const params = {
      client_id: provider.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope,
      state,
      code_challenge: input.code_challenge,
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** Exchanges the identity provider's code for platform tokens. */
  async exchange(input: TokenInput, origin: AuditOrigin) {
    const pending = await this.store.findAuthorization(pkceChallenge(input.code_verifier));
    const fail = async (reason: string, error: Error) => {
      await this.audit.record({ eventType: 'oauth_login_failure', clientId: input.client_id, ...origin, metadata: { reason, provider: pending?.provider } });
      return error;
    };
    if (!pending) throw await fail('pkce_mismatch', oauthError(400, 'invalid_grant', 'The code verifier does not match any authorization request'));
    if (input.state !== undefined && input.state !== pending.state)
      throw await fail('state_mismatch', oauthError(400, 'invalid_grant', 'The state does not match the authorization request'));
    if (pending.consumedAt) throw await fail('code_replayed', oauthError(400, 'invalid_grant', 'This authorization was already used'));
    if (pending.expiresAt <= new Date()) throw await fail('expired', oauthError(400, 'invalid_grant', 'The authorization request has expired'));
    if (input.redirect_uri !== pending.redirectUri)
      throw await fail('redirect_uri_mismatch', oauthError(400, 'redirect_uri_mismatch', 'The redirect URI differs from the authorization request'));
    if (input.client_id !== pending.clientId)
      throw await fail('client_mismatch', oauthError(400, 'invalid_grant', 'The client differs from the authorization request'));
    if (!(await this.store.consumeAuthorization(pending.state)))
      throw await fail('code_replayed', oauthError(400, 'invalid_grant', 'This authorization was already used'));

    const provider = await this.provider(pending.provider);
    const idpTokens = await this.idp
      .token(provider, { grant_type: 'authorization_code', code: input.code, redirect_uri: pending.redirectUri, code_verifier: input.code_verifier })
      .catch(async (error: Error) => Promise.reject(await fail('idp_refused', error)));
    const identity = await this.idp.identity(provider, idpTokens.access_token);
    const access = mapGroups(identity.groups, this.config.AUTH_ROLE_MAPPINGS);
    if (access.roles.length === 0) {
      throw await fail('no_mapped_group', oauthError(403, 'access_denied', 'None of your identity-provider groups grants access to the platform'));
    }
    const user = await this.upsertUser(provider.name, identity, access);
    await this.teams.syncIdpMemberships(user.id, provider.name, access.teams);
    await this.storeIdpTokens(user.id, provider.name, idpTokens);
    const tokens = await this.refreshTokens.issue(
      { ...user, teams: await this.teams.claimsOf(user.id) },
      { clientId: input.client_id, scope: idpTokens.scope ?? pending.scope, provider: provider.name },
    );
    await this.audit.record({
      eventType: 'oauth_login_success',
      userId: user.id,
      clientId: input.client_id,
      ...origin,
      metadata: { provider: provider.name, groups: identity.groups.map((group) => group.path) },
    });
    return {
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_type: 'Bearer' as const,
      expires_in: tokens.expiresIn,
      scope: tokens.scope,
      user: {
        id: user.id,
        username: user.username,
        email: user.email,
        name: user.name,
        avatar_url: user.avatarUrl,
        idp_id: identity.numericId,
        roles: user.roles,
        groups: access.groups,
      },
    };
  }

  /** The caller's stored identity-provider token, decrypted. */
  async idpToken(userId: string) {
    const stored = await this.store.latestIdpToken(userId);
    if (!stored) throw notFound('No identity-provider token is stored for this user');
    return {
      access_token: this.box.open(stored.accessTokenEncrypted),
      token_type: stored.tokenType,
      expires_in: stored.expiresAt ? Math.max(0, Math.floor((stored.expiresAt.getTime() - Date.now()) / 1000)) : IDP_TOKEN_DEFAULT_TTL,
      refresh_token: stored.refreshTokenEncrypted ? this.box.open(stored.refreshTokenEncrypted) : null,
      created_at: Math.floor(stored.updatedAt.getTime() / 1000),
      scope: stored.scope,
    };
  }

  /** Refreshes the identity-provider token first, then rotates the platform refresh token. */
  async refresh(input: { refresh_token: string; provider: string }, origin: AuditOrigin) {
    const session = await this.refreshTokens.findByToken(input.refresh_token);
    if (!session || session.provider !== input.provider) throw invalidGrant('The refresh token is not valid for this provider');
    const provider = await this.provider(input.provider);
    const stored = await this.store.idpToken(session.userId, provider.name);
    if (!stored?.refreshTokenEncrypted) throw invalidGrant('No identity-provider refresh token is stored for this session');
    const renewed = await this.idp.token(provider, { grant_type: 'refresh_token', refresh_token: this.box.open(stored.refreshTokenEncrypted) });
    await this.storeIdpTokens(session.userId, provider.name, {
      ...renewed,
      refresh_token: renewed.refresh_token ?? this.box.open(stored.refreshTokenEncrypted),
    });
    const tokens = await this.refreshTokens.rotate(input.refresh_token, origin);
    await this.audit.record({ eventType: 'oauth_token_refreshed', userId: session.userId, ...origin, metadata: { provider: provider.name } });
    return {
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_type: 'Bearer' as const,
      expires_in: tokens.expiresIn,
      idp_token: { access_token: renewed.access_token, refresh_token: renewed.refresh_token ?? null, expires_in: renewed.expires_in ?? IDP_TOKEN_DEFAULT_TTL },
    };
  }

  private async upsertUser(provider: string, identity: IdpIdentity, access: { roles: string[]; permissions: string[]; groups: unknown }) {
    const profile = {
      email: identity.email,
      name: identity.name,
      avatarUrl: identity.avatarUrl,
      roles: access.roles,
      permissions: access.permissions,
      idpGroups: access.groups as object,
      lastLoginAt: new Date(),
    };
    return this.store.upsertIdpUser(provider, identity.subject, identity.username, profile);
  }

  private async storeIdpTokens(userId: string, provider: string, tokens: IdpTokens) {
    const data = {
      accessTokenEncrypted: this.box.seal(tokens.access_token),
      refreshTokenEncrypted: tokens.refresh_token ? this.box.seal(tokens.refresh_token) : null,
      tokenType: tokens.token_type ?? 'Bearer',
      scope: tokens.scope ?? '',
      expiresAt: new Date(Date.now() + (tokens.expires_in ?? IDP_TOKEN_DEFAULT_TTL) * 1000),
    };
    await this.store.storeIdpToken(userId, provider, data);
  }
}
