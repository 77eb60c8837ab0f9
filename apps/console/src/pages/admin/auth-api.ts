import { auth } from '@platform/contracts';
import type { z } from 'zod';
import type { Platform } from '../../api';

/** Auth's admin API as the Admin section uses it; bodies checked against the contracts' schemas. */
export type User = z.infer<typeof auth.User>;
export type ApiKey = z.infer<typeof auth.ApiKey>;
export type IssuedApiKey = z.infer<typeof auth.IssuedApiKey>;
export type AuditEvent = z.infer<typeof auth.AuditEvent>;
export type Team = z.infer<typeof auth.Team>;
export type CreateUser = z.input<typeof auth.CreateUserRequest>;
export type CreateApiKey = z.input<typeof auth.CreateApiKeyRequest>;

const base = '/api/v1/auth';

export const authApi = {
  users: async (platform: Platform, page: { limit: number; offset: number }) =>
    auth.UserList.parse(await platform.request('auth', `${base}/admin/users`, { query: page })),
  createUser: async (platform: Platform, body: CreateUser) =>
    auth.User.parse(await platform.request('auth', `${base}/admin/users`, { method: 'POST', json: body })),
  apiKeys: async (platform: Platform, page: { limit: number; offset: number }) =>
    auth.ApiKeyList.parse(await platform.request('auth', `${base}/admin/api-keys`, { query: page })),
  createApiKey: async (platform: Platform, body: CreateApiKey) =>
    auth.IssuedApiKey.parse(await platform.request('auth', `${base}/admin/api-keys`, { method: 'POST', json: body })),
  revokeApiKey: (platform: Platform, id: string) => platform.request<void>('auth', `${base}/admin/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  teams: async (platform: Platform, page: { limit: number; offset: number }) =>
    auth.TeamList.parse(await platform.request('auth', `${base}/teams`, { query: page })),
  audit: async (platform: Platform, query: { limit: number; offset: number; eventType?: string; userId?: string }) =>
    auth.AuditList.parse(await platform.request('auth', `${base}/audit`, { query })),
};
