import { ApiError } from '@platform/http';
import type { IdpGroup } from './role-mapping';
import type { ProviderConfig } from './providers';

export interface IdpTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  created_at?: number;
}

export interface IdpIdentity {
  subject: string;
  username: string;
  email: string | null;
  name: string | null;
  avatarUrl: string | null;
  numericId: number | null;
  groups: IdpGroup[];
}

const TIMEOUT_MS = 10_000;

export const oauthError = (status: number, code: 'invalid_grant' | 'redirect_uri_mismatch' | 'access_denied' | 'invalid_request', message: string) =>
  new ApiError(status, status === 403 ? 'authorization_error' : 'authentication_error', code, message);

const upstreamError = (message: string) => new ApiError(502, 'api_error', 'upstream_error', message);

async function request(url: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> | unknown[] }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw upstreamError('The identity provider could not be reached');
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw upstreamError(`The identity provider answered ${response.status} with a body that is not JSON`);
  }
}

/** Talks to an identity provider's token and user-info endpoints (client_secret_post). */
export class IdpClient {
  async token(provider: ProviderConfig, grant: Record<string, string>): Promise<IdpTokens> {
    const form = new URLSearchParams({ ...grant, client_id: provider.clientId, client_secret: provider.clientSecret });
    const { status, body } = await request(provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
    });
    const result = body as Record<string, unknown>;
    if (status >= 400 || typeof result.access_token !== 'string') {
      const code = result.error === 'access_denied' ? 'access_denied' : 'invalid_grant';
      if (status >= 500) throw upstreamError(`The identity provider failed (${status})`);
      throw oauthError(
        code === 'access_denied' ? 403 : 400,
        code,
        `The identity provider refused the grant: ${String(result.error_description ?? result.error ?? status)}`,
      );
    }
    return result as unknown as IdpTokens;
  }

  async identity(provider: ProviderConfig, accessToken: string): Promise<IdpIdentity> {
    const headers = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
    const { status, body } = await request(provider.userInfoUrl, { headers });
    if (status >= 400) throw upstreamError(`The identity provider's user info failed (${status})`);
    const info = body as Record<string, unknown>;
    const rawId = info.id ?? info.sub;
    if (rawId === undefined || rawId === null) throw upstreamError('The identity provider returned no user id');
    const subject = String(rawId);
    let groups = parseGroups(info.groups);
    if (provider.groupsUrl) {
      const listed = await request(provider.groupsUrl, { headers });
      if (listed.status < 400) groups = [...groups, ...parseGroups(listed.body)];
    }
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
    return {
      subject,
      username: text(info.username) ?? text(info.preferred_username) ?? text(info.nickname) ?? `user-${subject}`,
      email: text(info.email),
      name: text(info.name),
      avatarUrl: text(info.avatar_url) ?? text(info.picture),
      numericId: /^\d{1,15}$/.test(subject) ? Number(subject) : null,
      groups: dedupe(groups),
    };
  }
}

/** Groups as plain paths (OIDC `groups` claim) or GitLab group objects ({id, full_path}). */
function parseGroups(value: unknown): IdpGroup[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((group): IdpGroup[] => {
    if (typeof group === 'string') return [{ id: null, path: group }];
    if (group && typeof group === 'object') {
      const { id, full_path: fullPath, path, name } = group as Record<string, unknown>;
      const groupPath = [fullPath, path, name].find((candidate) => typeof candidate === 'string') as string | undefined;
      return groupPath ? [{ id: typeof id === 'number' ? id : null, path: groupPath }] : [];
    }
    return [];
  });
}

function dedupe(groups: IdpGroup[]): IdpGroup[] {
  const seen = new Map<string, IdpGroup>();
  for (const group of groups) if (!seen.has(group.path) || group.id !== null) seen.set(group.path, group);
  return [...seen.values()];
}
