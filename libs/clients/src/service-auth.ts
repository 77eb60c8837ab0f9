import { auth } from '@platform/contracts';
import { ServiceClient, type TokenSource } from './service-client';

export interface ServiceApiKeyOptions {
  authUrl: string;
  apiKey: string;
  /** The client id the token is issued for (the calling service's name). */
  clientId: string;
  /** Renew this long before the token expires (default 60 s). */
  renewBeforeMs?: number;
  timeoutMs?: number;
}

/**
 * A service's own token: its API key exchanged at auth's `/api/v1/auth/api-key`, cached until
 * shortly before it expires. Concurrent callers share one exchange.
 */
export function serviceApiKeyToken(options: ServiceApiKeyOptions): TokenSource & { clear: () => void } {
  const client = new ServiceClient({ service: 'auth', baseUrl: options.authUrl, timeoutMs: options.timeoutMs ?? 5000 });
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const source = async () => {
    if (cached && Date.now() < cached.renewAt) return cached.token;
    pending ??= client
      .request('POST', '/api/v1/auth/api-key', {
        body: { api_key: options.apiKey, client_id: options.clientId },
        schema: auth.ApiKeyLoginResponse,
        idempotent: true,
      })
      .then((answer) => {
        cached = { token: answer.access_token, renewAt: Date.now() + Math.max(0, answer.expires_in * 1000 - (options.renewBeforeMs ?? 60_000)) };
        return answer.access_token;
      })
      .finally(() => (pending = undefined));
    return pending;
  };
  return Object.assign(source, { clear: () => (cached = undefined) });
}
