import { platformErrorFrom, PlatformError } from './errors';
import { ConsoleSession, type SessionUser } from './session-schema';

export const SESSION_PATH = '/api/v1/console/session';
/** Every call to the gateway's console endpoints says it comes from the console (CSRF guard). */
export const CONSOLE_HEADER = { 'X-Platform-Console': '1' } as const;

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; reason?: string }
  | { status: 'signed-in'; user: SessionUser; accessToken: string; expiresAt: number };

/** Refresh a minute before the token expires; a short-lived one at half its life. */
export function refreshDelayMs(expiresInSeconds: number): number {
  const life = expiresInSeconds * 1000;
  return Math.max(1000, life / 2, life - 60_000);
}

type Fetch = typeof fetch;

/**
 * The console's session: the access token lives only in this object's memory (never in storage);
 * the gateway keeps the refresh token in an HttpOnly cookie, so a reload calls `restore()`.
 */
export class SessionStore {
  private state: SessionState = { status: 'loading' };
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<boolean> | undefined;

  constructor(
    private readonly fetchImpl: Fetch = (...args) => fetch(...args),
    private readonly now: () => number = () => Date.now(),
  ) {}

  get current(): SessionState {
    return this.state;
  }

  get accessToken(): string | undefined {
    return this.state.status === 'signed-in' ? this.state.accessToken : undefined;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): SessionState => this.state;

  /** Password sign-in; throws the gateway's refusal as a PlatformError. */
  async signIn(username: string, password: string): Promise<SessionUser> {
    const session = await this.call('POST', SESSION_PATH, { username, password });
    this.accept(session);
    return session.user;
  }

  /** Gets a fresh access token from the refresh cookie; false (and signed out) when there is none. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.call('POST', `${SESSION_PATH}/refresh`)
      .then((session) => {
        this.accept(session);
        return true;
      })
      .catch((error: unknown) => {
        const reason = error instanceof PlatformError && error.status !== 401 ? error.message : undefined;
        this.set({ status: 'signed-out', reason });
        return false;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** On start: a session from the cookie, if the browser has one. */
  restore(): Promise<boolean> {
    return this.refresh();
  }

  /** Revokes the refresh token at the gateway and forgets the access token. */
  async signOut(): Promise<void> {
    try {
      await this.fetchImpl(SESSION_PATH, { method: 'DELETE', headers: { ...CONSOLE_HEADER }, credentials: 'same-origin' });
    } finally {
      this.set({ status: 'signed-out' });
    }
  }

  private accept(session: ConsoleSession): void {
    this.set({
      status: 'signed-in',
      user: session.user,
      accessToken: session.accessToken,
      expiresAt: this.now() + session.expiresIn * 1000,
    });
    this.timer = setTimeout(() => void this.refresh(), refreshDelayMs(session.expiresIn));
  }

  private set(state: SessionState): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.state = state;
    for (const listener of this.listeners) listener();
  }

  private async call(method: string, path: string, body?: unknown): Promise<ConsoleSession> {
    let response: Response;
    try {
      response = await this.fetchImpl(path, {
        method,
        credentials: 'same-origin',
        headers: { ...CONSOLE_HEADER, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (error) {
      throw PlatformError.network(error, `${method} ${path}`);
    }
    const text = await response.text();
    if (!response.ok) throw platformErrorFrom(response.status, text, response.headers);
    const parsed = ConsoleSession.safeParse(JSON.parse(text));
    if (!parsed.success) throw new PlatformError(response.status, 'unexpected_response', 'The gateway answered the session call with an unexpected body');
    return parsed.data;
  }
}
