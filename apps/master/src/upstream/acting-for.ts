import { UpstreamError, type TokenExchanger } from '@platform/clients';
import { serviceUnavailable } from '@platform/http';
import type { Caller } from '../access';
import { bearerOf } from './upstream';

/** The `Authorization` of a call the master makes for a user (to workers, to the registry). */
export type ActingFor = (who: Caller) => Promise<string | undefined>;

/**
 * Calls made for a user carry a token auth delegated (RFC 8693: the user's `sub` and teams, the
 * master in `act`), so what they create in workers or the registry is the user's and reaches no
 * further than the user may. The master's own key is the actor; without one (development, tests)
 * the caller's token is forwarded instead, which DESIGN.md also allows.
 */
export function actingFor(exchanger: TokenExchanger | undefined): ActingFor {
  return async (who) => {
    const token = bearerOf(who.authorization);
    if (!exchanger || !token) return who.authorization;
    try {
      return `Bearer ${await exchanger.exchange(token)}`;
    } catch (error) {
      // Auth unreachable: 503 naming it; auth refusing the exchange stays a 502 naming auth.
      if (error instanceof UpstreamError && (error.reason === 'network' || error.reason === 'timeout')) {
        throw serviceUnavailable(error.message, { dependency: error.service, reason: error.reason });
      }
      throw error;
    }
  };
}
