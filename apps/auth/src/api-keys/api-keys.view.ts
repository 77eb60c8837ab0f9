import type { ApiKeyRow } from './api-keys.repository';

/** An API key as the API shows it (the secret only at issue, never its hash). */
export function describe(key: ApiKeyRow) {
  return {
    id: key.id,
    prefix: key.prefix,
    service: key.service,
    permissions: key.permissions,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    rotatedFrom: key.rotatedFrom,
  };
}
