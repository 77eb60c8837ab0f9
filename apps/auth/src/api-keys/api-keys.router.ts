import { auth, PageQuery } from '@platform/contracts';
import type { TokenVerifier } from '@platform/jwt';
import { ApiRouter } from '@platform/http';
import { originOf } from '../audit/audit.service';
import type { ApiKeys } from './api-keys.service';

export function apiKeysRouter(verifier: TokenVerifier, apiKeys: ApiKeys): ApiRouter {
  const admin = { permission: 'auth:admin' } as const;
  return new ApiRouter(verifier)
    .route({
      method: 'post',
      path: '/admin/api-keys',
      summary: 'Issue a service API key (the key is shown once)',
      tags: ['admin'],
      access: admin,
      body: auth.CreateApiKeyRequest,
      responses: { 201: { description: 'The new key, with its secret', schema: auth.IssuedApiKey } },
      handler: (req) => apiKeys.issue(req.valid.body, req.auth!.sub, originOf(req)),
    })
    .route({
      method: 'get',
      path: '/admin/api-keys',
      summary: 'List service API keys (never their secrets)',
      tags: ['admin'],
      access: admin,
      query: PageQuery,
      responses: { 200: { description: 'A page of keys', schema: auth.ApiKeyList } },
      handler: (req) => apiKeys.list(req.valid.query),
    })
    .route({
      method: 'post',
      path: '/admin/api-keys/:id/rotate',
      summary: 'Rotate a key: a new secret now, the old one revoked after an optional grace period',
      tags: ['admin'],
      access: admin,
      params: auth.IdParams,
      body: auth.RotateApiKeyRequest,
      responses: { 201: { description: 'The replacement key, with its secret', schema: auth.IssuedApiKey }, 404: { description: 'No such active key' } },
      handler: (req) => apiKeys.rotate(req.valid.params.id, req.valid.body.gracePeriodSeconds, req.auth!.sub, originOf(req)),
    })
    .route({
      method: 'delete',
      path: '/admin/api-keys/:id',
      summary: 'Revoke a key',
      tags: ['admin'],
      access: admin,
      params: auth.IdParams,
      responses: { 204: { description: 'Revoked' }, 404: { description: 'No such active key' } },
      handler: async (req) => {
        await apiKeys.revoke(req.valid.params.id, req.auth!.sub, originOf(req));
      },
    });
}
