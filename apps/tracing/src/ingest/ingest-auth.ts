import { unauthorized } from '@platform/http';
import type { AccessTokenClaims } from '@platform/contracts';
import { hasPermission, PermissionError, TokenError, type TokenVerifier } from '@platform/jwt';
import type { IngestKeys } from './ingest-keys';

export const INGEST_PERMISSION = 'traces:write';

/**
 * One check for every ingestion transport (OTLP/HTTP headers, OTLP/gRPC metadata): a static
 * ingestion key, or a platform token holding traces:write. Answers the token's claims (none for a
 * key); throws TokenError / 401 ApiError for missing or bad credentials, PermissionError without
 * the permission.
 */
export async function authenticateIngest(presented: string | undefined, keys: IngestKeys, verifier: TokenVerifier): Promise<AccessTokenClaims | undefined> {
  if (!presented) throw new TokenError('token_missing', 'An ingestion key (Authorization: Bearer or x-api-key) or a token with traces:write is required');
  if (keys.matches(presented)) return undefined;
  if (presented.split('.').length !== 3) throw unauthorized('The ingestion key is not valid', { reason: 'invalid_key' });
  const claims = await verifier.verify(presented);
  if (!hasPermission(claims.permissions, INGEST_PERMISSION)) throw new PermissionError(INGEST_PERMISSION, claims.permissions);
  return claims;
}

/** The credential of `x-api-key`, else of `authorization: Bearer`. */
export function presentedCredential(apiKey: unknown, authorization: unknown): string | undefined {
  if (typeof apiKey === 'string' && apiKey.trim().length > 0) return apiKey.trim();
  const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}
