import { ServiceClient, UpstreamError } from '@platform/clients';
import { auth } from '@platform/contracts';
import { ApiError } from '@platform/http';
import type { z } from 'zod';
import { dependencyUnavailable } from '../platform/platform.targets';

export type TokenPair = { access_token: string; refresh_token: string; expires_in: number };

/**
 * What auth answered, as the console's answer: auth's own refusal (401 invalid credentials or
 * grant, 400, 429 with its Retry-After) keeps its status and code; auth down is 503 naming it.
 */
function asConsoleError(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const status = error.upstreamStatus;
  if (status !== undefined && status >= 400 && status < 500) {
    const body = (error.upstreamBody as { error?: { type?: string; code?: string; message?: string } } | undefined)?.error;
    const type = (body?.type ?? (status === 401 ? 'authentication_error' : 'validation_error')) as ApiError['type'];
    return new ApiError(status, type, body?.code ?? 'invalid_request', body?.message ?? `auth refused the request (${status})`);
  }
  return dependencyUnavailable('auth', error.reason);
}

/** The auth calls behind the console's session: password login, rotation, revocation, OAuth. */
export class AuthSessions {
  private readonly http: ServiceClient;

  constructor(private readonly options: { authUrl: string; clientId: string; timeoutMs: number }) {
    this.http = new ServiceClient({ service: 'auth', baseUrl: options.authUrl, timeoutMs: options.timeoutMs, retries: 0 });
  }

  /** Auth limits logins per address: it sees the browser's, not the gateway's. */
  private call<S extends z.ZodType>(path: string, body: unknown, schema: S, clientIp: string | undefined, bearer?: string) {
    return this.http
      .request('POST', path, { body, schema, bearer, headers: clientIp ? { 'X-Forwarded-For': clientIp } : undefined })
      .catch((error: unknown) => Promise.reject(asConsoleError(error)));
  }

  login(username: string, password: string, clientIp?: string): Promise<TokenPair> {
    const body = { grant_type: 'password', username, password, client_id: this.options.clientId };
    return this.call('/api/v1/auth/login', body, auth.TokenResponse, clientIp);
  }

  refresh(refreshToken: string, clientIp?: string): Promise<TokenPair> {
    return this.call('/api/v1/auth/refresh', { grant_type: 'refresh_token', refresh_token: refreshToken }, auth.RefreshResponse, clientIp);
  }

  /** Revokes the refresh token's whole family (and so every later rotation of it). */
  async revoke(token: string, hint: 'access_token' | 'refresh_token', bearer: string, clientIp?: string): Promise<void> {
    await this.call('/api/v1/auth/revoke', { token, token_type_hint: hint }, auth.RevokeResponse, clientIp, bearer);
  }

  /** Where auth sends the browser to sign in at the identity provider (auth records state and challenge). */
  async authorizationUrl(query: { provider: string; redirectUri: string; state: string; codeChallenge: string }): Promise<string> {
    const url = new URL('/api/v1/auth/oauth/authorize', this.options.authUrl);
    for (const [name, value] of Object.entries({
      provider: query.provider,
      redirect_uri: query.redirectUri,
      client_id: this.options.clientId,
      state: query.state,
      code_challenge: query.codeChallenge,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(name, value);
    let response: Response;
    try {
      response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (error) {
      throw dependencyUnavailable('auth', (error as Error).name === 'TimeoutError' ? 'timeout' : 'network');
    }
    const location = response.headers.get('location');
    if (response.status === 302 && location) return location;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    throw asConsoleError(new UpstreamError('auth', `auth answered the authorization with ${response.status}`, 'status', response.status, body));
  }

  exchangeCode(input: { code: string; state: string; verifier: string; redirectUri: string }, clientIp?: string) {
    const body = {
      grant_type: 'authorization_code',
      code: input.code,
      state: input.state,
      code_verifier: input.verifier,
      redirect_uri: input.redirectUri,
      client_id: this.options.clientId,
    };
    return this.call('/api/v1/auth/oauth/token', body, auth.OAuthTokenResponse, clientIp);
  }
}
