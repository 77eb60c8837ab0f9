import { PageQuery } from '../paging';
import { Permission } from '../token';
import { z } from 'zod';

export const CreateUserRequest = z
  .object({
    username: z.string().regex(/^[A-Za-z0-9._@-]{3,64}$/, 'a username is 3 to 64 letters, digits and ._@-'),
    password: z.string().min(12, 'passwords have at least 12 characters').max(1024),
    email: z.email().max(320).optional(),
    name: z.string().max(200).optional(),
    roles: z
      .array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/))
      .max(20)
      .default(['user']),
    permissions: z.array(Permission).max(100).default([]),
  })
  .strict();

export const User = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  disabled: z.boolean(),
  idpProvider: z.string().nullable(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});

export const UserList = z.object({ users: z.array(User), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const CreateApiKeyRequest = z
  .object({
    service: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a service name is lowercase letters, digits and hyphens'),
    permissions: z.array(Permission).min(1).max(100),
    expiresAt: z.iso.datetime().optional(),
  })
  .strict();

export const ApiKey = z.object({
  id: z.string(),
  prefix: z.string(),
  service: z.string(),
  permissions: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  rotatedFrom: z.string().nullable(),
});

/** Returned once, at issue or rotation: the only time the secret is seen. */
export const IssuedApiKey = ApiKey.extend({ key: z.string() });
export const ApiKeyList = z.object({ apiKeys: z.array(ApiKey), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const RotateApiKeyRequest = z
  .object({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .default(0),
  })
  .strict();

export const SigningKeyInfo = z.object({
  kid: z.string(),
  state: z.enum(['pending', 'active', 'retired']),
  publishedAt: z.string(),
  activatesAt: z.string(),
  retiredAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export const SigningKeyList = z.object({ keys: z.array(SigningKeyInfo) });

export const AuditEvent = z.object({
  id: z.string(),
  eventType: z.string(),
  userId: z.string().nullable(),
  timestamp: z.string(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  clientId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

export const AuditQuery = PageQuery.extend({
  userId: z.string().max(128).optional(),
  eventType: z.string().max(64).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});
export const AuditList = z.object({ events: z.array(AuditEvent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const IdParams = z.object({ id: z.uuid() });
