import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from './client';
import { PlatformError, unwrap } from './errors';

/** What a session keeps between runs (the CLI's credentials file, a browser's memory). */
export interface SessionTokens {
  accessToken: string;
  /** Epoch milliseconds at which the access token expires. */
  expiresAt: number;
  /** From a password login: rotated on every refresh. */
  refreshToken?: string;
  /** From an API-key login: exchanged again when the token nears its end. */
  apiKey?: string;
  username?: string;
}

export interface SessionStore {
  load(): SessionTokens | undefined | Promise<SessionTokens | undefined>;
  save(tokens: SessionTokens): void | Promise<void>;
  clear(): void | Promise<void>;
}

/** Keeps the tokens in this object only (a browser tab, a test). */
export function memoryStore(initial?: SessionTokens): SessionStore {
  let tokens = initial;
  return {
    load: () => tokens,
    save: (next) => void (tokens = next),
    clear: () => void (tokens = undefined),
  };
}

export interface SessionOptions extends Pick<PlatformClientOptions, 'baseUrl' | 'direct' | 'fetch' | 'WebSocket'> {
  store?: SessionStore;
  /** `client_id` sent to auth with each login. */
  clientId?: string;
  /** Renew the access token when it has less than this left (default 60 s). */
  renewBeforeMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * A signed-in caller: logs in at auth (password or API key), keeps the tokens in its store, renews
 * the access token before it expires (refresh-token rotation, or a new API-key exchange) and after a
 * 401, and revokes on logout. `session.client()` is a platform client that uses it.
 */
export class PlatformSession {
  private readonly store: SessionStore;
  private readonly anonymous: PlatformClient;
  private renewing: Promise<boolean> | undefined;

  constructor(private readonly options: SessionOptions) {
    this.store = options.store ?? memoryStore();
    this.anonymous = createPlatformClient({ baseUrl: options.baseUrl, direct: options.direct, fetch: options.fetch });
  }

  private get now() {
    return (this.options.now ?? Date.now)();
  }

  private get clientId() {
    return this.options.clientId ?? 'platform-sdk';
  }

  async loginWithPassword(username: string, password: string): Promise<SessionTokens> {
    const body = await unwrap(
      this.anonymous.auth.POST('/api/v1/auth/login', { body: { grant_type: 'password', username, password, client_id: this.clientId } }),
    );
    return this.keep({ accessToken: body.access_token, refreshToken: body.refresh_token, expiresAt: this.now + body.expires_in * 1000, username });
  }

  async loginWithApiKey(apiKey: string): Promise<SessionTokens> {
    const body = await unwrap(this.anonymous.auth.POST('/api/v1/auth/api-key', { body: { api_key: apiKey, client_id: this.clientId } }));
    return this.keep({ accessToken: body.access_token, apiKey, expiresAt: this.now + body.expires_in * 1000, username: body.service });
  }

  /** The tokens kept, if any (whether or not still valid). */
  async tokens(): Promise<SessionTokens | undefined> {
    return this.store.load();
  }

  /** A valid access token, renewed first when it expires within `renewBeforeMs`; undefined when signed out. */
  async token(): Promise<string | undefined> {
    const tokens = await this.store.load();
    if (!tokens) return undefined;
    if (tokens.expiresAt - this.now > (this.options.renewBeforeMs ?? 60_000)) return tokens.accessToken;
    if (await this.refresh()) return (await this.store.load())?.accessToken;
    return undefined;
  }

  /**
   * Renews the access token (one renewal at a time, however many callers ask). False when there is
   * nothing to renew with or auth refused (a revoked or reused refresh token): the session is
   * then cleared. A platform that cannot be reached throws.
   */
  refresh(): Promise<boolean> {
    this.renewing ??= this.renew().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renew(): Promise<boolean> {
    const tokens = await this.store.load();
    if (!tokens?.refreshToken && !tokens?.apiKey) return false;
    try {
      if (tokens.apiKey) await this.loginWithApiKey(tokens.apiKey);
      else {
        const body = await unwrap(
          this.anonymous.auth.POST('/api/v1/auth/refresh', { body: { grant_type: 'refresh_token', refresh_token: tokens.refreshToken! } }),
        );
        await this.keep({ ...tokens, accessToken: body.access_token, refreshToken: body.refresh_token, expiresAt: this.now + body.expires_in * 1000 });
      }
      return true;
    } catch (error) {
      if (error instanceof PlatformError && error.status >= 400 && error.status < 500 && error.status !== 429) {
        await this.store.clear();
        return false;
      }
      throw error;
    }
  }

  /** Revokes the refresh token (or, for an API-key login, the access token) at auth and forgets the tokens. */
  async logout(): Promise<void> {
    const tokens = await this.store.load();
    if (!tokens) return;
    try {
      const revoke = tokens.refreshToken ?? tokens.accessToken;
      await unwrap(
        this.anonymous.auth.POST('/api/v1/auth/revoke', {
          body: { token: revoke, token_type_hint: tokens.refreshToken ? 'refresh_token' : 'access_token' },
          headers: { authorization: `Bearer ${tokens.accessToken}` },
        }),
      );
    } finally {
      await this.store.clear();
    }
  }

  /** A platform client that signs its requests with this session and renews it on a 401. */
  client(extra: Omit<PlatformClientOptions, 'baseUrl' | 'token' | 'apiKey' | 'onUnauthorized'> = {}): PlatformClient {
    return createPlatformClient({
      baseUrl: this.options.baseUrl,
      direct: this.options.direct,
      fetch: this.options.fetch,
      WebSocket: this.options.WebSocket,
      ...extra,
      token: () => this.token(),
      onUnauthorized: () => this.refresh(),
    });
  }

  private async keep(tokens: SessionTokens): Promise<SessionTokens> {
    await this.store.save(tokens);
    return tokens;
  }
}
