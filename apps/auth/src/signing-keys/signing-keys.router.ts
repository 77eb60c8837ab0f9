import { auth } from '@platform/contracts';
import type { TokenVerifier } from '@platform/jwt';
import { ApiRouter } from '@platform/http';
import { originOf, type AuditLog } from '../audit/audit.service';
import type { KeyRing } from './signing-keys.service';

export function signingKeysAdminRouter(verifier: TokenVerifier, keys: KeyRing, audit: AuditLog): ApiRouter {
  return new ApiRouter(verifier)
    .route({
      method: 'get',
      path: '/admin/signing-keys',
      summary: 'List signing keys and their states',
      tags: ['admin'],
      access: { permission: 'auth:admin' },
      responses: { 200: { description: 'Keys, oldest first', schema: auth.SigningKeyList } },
      handler: () => ({ keys: keys.describe() }),
    })
    .route({
      method: 'post',
      path: '/admin/signing-keys/rotate',
      summary: 'Rotate the signing key now (the new key activates after the pre-publication delay)',
      tags: ['admin'],
      access: { permission: 'auth:admin' },
      responses: { 202: { description: 'The new key', schema: auth.SigningKeyInfo }, 409: { description: 'A rotation is pending or the JWKS is full' } },
      handler: async (req) => {
        const rotated = await keys.rotate();
        await audit.record({
          eventType: 'signing_key_rotated',
          userId: req.auth!.sub,
          ...originOf(req),
          metadata: { kid: rotated.kid, activatesAt: rotated.activatesAt.toISOString(), trigger: 'admin' },
        });
        return keys.describe().find((key) => key.kid === rotated.kid);
      },
    });
}
