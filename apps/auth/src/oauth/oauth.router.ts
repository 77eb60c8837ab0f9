import { auth } from '@platform/contracts';
import type { TokenVerifier } from '@platform/jwt';
import { ApiRouter, forbidden } from '@platform/http';
import type { RequestHandler } from 'express';
import { originOf, type AuditLog } from '../audit/audit.service';
import type { OAuthFlow } from './oauth.service';
import type { OAuthProviders } from './providers';

export interface OAuthRouterDeps {
  verifier: TokenVerifier;
  flow: OAuthFlow;
  providers: OAuthProviders;
  audit: AuditLog;
  limits: { login: RequestHandler; refresh: RequestHandler };
}

export function oauthRouter({ verifier, flow, providers, audit, limits }: OAuthRouterDeps): ApiRouter {
  return new ApiRouter(verifier)
    .route({
      method: 'get',
      path: '/oauth/authorize',
      summary: 'Start the authorization-code flow with PKCE: redirects to the identity provider',
      tags: ['oauth'],
      access: 'public',
      query: auth.AuthorizeQuery,
      responses: { 302: { description: 'Redirect to the identity provider' }, 404: { description: 'Unknown provider' } },
      handler: async (req, res) => {
        res.redirect(302, await flow.authorize(req.valid.query, originOf(req)));
      },
    })
    .route({
      method: 'post',
      path: '/oauth/token',
      summary: 'Exchange an authorization code and PKCE verifier for platform tokens',
      tags: ['oauth'],
      access: 'public',
      before: [limits.login],
      body: auth.OAuthTokenRequest,
      responses: {
        200: { description: 'Platform tokens and the user', schema: auth.OAuthTokenResponse },
        403: { description: 'access_denied' },
        502: { description: 'The identity provider failed' },
      },
      handler: (req) => flow.exchange(req.valid.body, originOf(req)),
    })
    .route({
      method: 'get',
      path: '/oauth/idp-token',
      summary: "The caller's identity-provider token",
      tags: ['oauth'],
      access: 'authenticated',
      responses: {
        200: { description: 'The stored token', schema: auth.IdpTokenResponse },
        403: { description: 'A service token (from an API key): services sign in to no identity provider' },
        404: { description: 'None stored' },
      },
      handler: (req) => {
        // Only a user's token names a user; a service's `sub` (`service:<name>`) is no user id.
        if (!req.auth!.user || req.auth!.api_key_id) {
          throw forbidden('Only a user has an identity-provider token; this is a service token', { sub: req.auth!.sub }, 'not_a_user');
        }
        return flow.idpToken(req.auth!.user.id);
      },
    })
    .route({
      method: 'post',
      path: '/oauth/refresh',
      summary: 'Refresh the identity-provider token and rotate the platform refresh token',
      tags: ['oauth'],
      access: 'public',
      before: [limits.refresh],
      body: auth.OAuthRefreshRequest,
      responses: { 200: { description: 'New tokens', schema: auth.OAuthRefreshResponse } },
      handler: (req) => flow.refresh(req.valid.body, originOf(req)),
    })
    .route({
      method: 'post',
      path: '/oauth/configure',
      summary: 'Add or change a custom identity provider',
      tags: ['oauth'],
      access: { permission: 'auth:admin' },
      body: auth.ConfigureProviderRequest,
      responses: { 200: { description: 'The provider, without its secret', schema: auth.ConfigureProviderResponse } },
      handler: async (req) => {
        const { provider, config } = req.valid.body;
        const stored = await providers.configure(provider, config, req.auth!.sub);
        await audit.record({ eventType: 'provider_configured', userId: req.auth!.sub, ...originOf(req), metadata: { provider } });
        return {
          provider: stored.name,
          configured: true as const,
          authorizationURL: stored.authorizationUrl,
          tokenURL: stored.tokenUrl,
          userInfoURL: stored.userInfoUrl,
          clientID: stored.clientId,
          callbackURL: stored.callbackUrl,
          scopes: stored.scopes,
          updatedAt: stored.updatedAt.toISOString(),
        };
      },
    });
}
