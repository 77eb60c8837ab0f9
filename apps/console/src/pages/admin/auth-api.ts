import { auth } from '@platform/contracts';
import type { z } from 'zod';
import { unwrap, type Platform } from '../../api';

/** Auth's admin API as the Admin section uses it, through the SDK's typed client. */
export type User = z.infer<typeof auth.User>;
export type ApiKey = z.infer<typeof auth.ApiKey>;
export type IssuedApiKey = z.infer<typeof auth.IssuedApiKey>;
export type AuditEvent = z.infer<typeof auth.AuditEvent>;
export type Team = z.infer<typeof auth.Team>;
export type CreateUser = z.output<typeof auth.CreateUserRequest>;
export type CreateApiKey = z.output<typeof auth.CreateApiKeyRequest>;

type Page = { limit: number; offset: number };

export const authApi = {
  users: (platform: Platform, query: Page) => unwrap(platform.auth.GET('/api/v1/auth/admin/users', { params: { query } })),
  createUser: (platform: Platform, body: CreateUser) => unwrap(platform.auth.POST('/api/v1/auth/admin/users', { body })),
  apiKeys: (platform: Platform, query: Page) => unwrap(platform.auth.GET('/api/v1/auth/admin/api-keys', { params: { query } })),
  createApiKey: (platform: Platform, body: CreateApiKey) => unwrap(platform.auth.POST('/api/v1/auth/admin/api-keys', { body })),
  revokeApiKey: (platform: Platform, id: string) => unwrap(platform.auth.DELETE('/api/v1/auth/admin/api-keys/{id}', { params: { path: { id } } })),
  teams: (platform: Platform, query: Page) => unwrap(platform.auth.GET('/api/v1/auth/teams', { params: { query } })),
  audit: (platform: Platform, query: Page & { eventType?: string; userId?: string }) =>
    unwrap(platform.auth.GET('/api/v1/auth/audit', { params: { query } })),
};
