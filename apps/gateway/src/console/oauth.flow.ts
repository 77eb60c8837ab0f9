import { forbidden, notFound } from '@platform/http';
import type { Redis } from 'ioredis';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthSessions } from './auth-session.client';
import type { ConsoleSessions, IssuedSession } from './session.service';

/** How long a browser may take at the identity provider (auth keeps its request as long by default). */
export const OAUTH_STATE_TTL_SECONDS = 600;

const digest = (value: string) => createHash('sha256').update(value).digest();
const stateKey = (state: string) => `gateway:console:oauth:${digest(state).toString('hex')}`;

const sameState = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/**
 * The console's sign-in through an identity provider configured at auth: authorization code with
 * PKCE (S256), the gateway as the client. The verifier never leaves the gateway (Redis, for ten
 * minutes, once); the state is also kept in a cookie of this browser, so a code started in another
 * browser (login CSRF) is refused.
 */
export class ConsoleOAuth {
  constructor(
    private readonly auth: AuthSessions,
    private readonly sessions: ConsoleSessions,
    private readonly redis: Redis,
    private readonly options: { providers: readonly string[]; callbackUrl: (provider: string) => string },
  ) {}

  get providers(): readonly string[] {
    return this.options.providers;
  }

  private known(provider: string): void {
    if (!this.options.providers.includes(provider)) throw notFound(`No identity provider named ${provider.slice(0, 64)} is offered`);
  }

  /** Starts a sign-in: the identity provider's URL to send the browser to, and the state for its cookie. */
  async start(provider: string): Promise<{ location: string; state: string }> {
    this.known(provider);
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(48).toString('base64url');
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    const location = await this.auth.authorizationUrl({ provider, redirectUri: this.options.callbackUrl(provider), state, codeChallenge });
    await this.redis.set(stateKey(state), JSON.stringify({ provider, verifier }), 'EX', OAUTH_STATE_TTL_SECONDS);
    return { location, state };
  }

  /** Ends a sign-in: the code the identity provider sent back, for this browser's state, becomes a session. */
  async finish(provider: string, input: { code: string; state: string; cookieState?: string }, clientIp?: string): Promise<IssuedSession> {
    this.known(provider);
    if (!input.cookieState || !sameState(input.cookieState, input.state))
      throw forbidden('The sign-in was not started in this browser', { reason: 'state_mismatch' }, 'csrf_rejected');
    const pending = await this.redis.getdel(stateKey(input.state));
    if (!pending) throw forbidden('The sign-in has expired or was already used', { reason: 'state_unknown' }, 'csrf_rejected');
    const { provider: startedWith, verifier } = JSON.parse(pending) as { provider: string; verifier: string };
    if (startedWith !== provider) throw forbidden('The sign-in was started with another provider', { reason: 'provider_mismatch' }, 'csrf_rejected');
    const tokens = await this.auth.exchangeCode({ code: input.code, state: input.state, verifier, redirectUri: this.options.callbackUrl(provider) }, clientIp);
    return this.sessions.issue(tokens, tokens.user.username);
  }
}
