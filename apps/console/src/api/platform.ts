import { createPlatformClient, type PlatformClient } from '@platform/sdk';
import { useSyncExternalStore } from 'react';
import { createApiFetch, createApiSend, type ApiFetch, type ApiSend } from './client';
import { hasPermission } from './permissions';
import { SessionStore, type SessionState } from './session';
import type { SessionUser } from './session-schema';

/** The one session of the page: the access token lives in its memory only. */
export const session = new SessionStore();

/**
 * What sections use to reach the services through the gateway: the SDK's typed clients
 * (`platform.registry.GET('/api/v1/agents', …)` with `unwrap`, streams with `openStream`), and
 * untyped `request` / `send` by a service's app name and its own path.
 */
export type Platform = PlatformClient & {
  /** `request('registry', '/api/v1/agents', { query })`: parsed JSON, or a thrown PlatformError. */
  request: ApiFetch;
  /** The same call, answering the Response itself: for streams, and bodies of non-2xx answers. */
  send: ApiSend;
};

const send = createApiSend(session);
const platform: Platform = Object.freeze({
  ...createPlatformClient({ baseUrl: '', token: () => session.accessToken, onUnauthorized: () => session.refresh() }),
  request: createApiFetch(send),
  send,
});

export function usePlatform(): Platform {
  return platform;
}

export interface SessionView {
  state: SessionState;
  user: SessionUser | undefined;
  /** Whether the signed-in user holds `permission` (`*` and `<resource>:*` count). */
  can: (permission: string | undefined) => boolean;
  signIn: (username: string, password: string) => Promise<SessionUser>;
  signOut: () => Promise<void>;
}

export function useSession(): SessionView {
  const state = useSyncExternalStore(session.subscribe, session.getSnapshot);
  const user = state.status === 'signed-in' ? state.user : undefined;
  return {
    state,
    user,
    can: (permission) => hasPermission(user?.permissions, permission),
    signIn: (username, password) => session.signIn(username, password),
    signOut: () => session.signOut(),
  };
}
