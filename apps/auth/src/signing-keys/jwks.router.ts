import { auth } from '@platform/contracts';
import { ApiRouter } from '@platform/http';
import type { KeyRing } from './signing-keys.service';

/** `/.well-known/jwks.json`, cacheable for five minutes: well inside the pre-publication delay. */
export function jwksRouter(keys: KeyRing): ApiRouter {
  return new ApiRouter().route({
    method: 'get',
    path: '/jwks.json',
    summary: 'Public signing keys (JWKS)',
    tags: ['tokens'],
    access: 'public',
    responses: { 200: { description: 'The key set', schema: auth.JwksResponse } },
    handler: (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      return { keys: keys.jwks() };
    },
  });
}
