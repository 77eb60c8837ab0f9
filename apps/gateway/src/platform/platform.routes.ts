import type { ApiRouter, HttpMethod } from '@platform/http';
import { z } from 'zod';
import { PLATFORM_SERVICES } from './platform.targets';

const Params = z.object({
  service: z.enum(PLATFORM_SERVICES).describe('The platform service'),
  path: z.string().describe('The rest of the path, as the service serves it (`api/projects`, `api/v1/workflows`, `health/ready`)'),
});

const DESCRIPTION =
  'Passes the request to the service: method, query, body (streamed, at most GATEWAY_PLATFORM_BODY_LIMIT bytes) and the ' +
  "caller's credentials (a bearer token as sent; an API key exchanged at auth for a token first). The service checks its own " +
  'permissions; its status, headers and body come back unbuffered (server-sent events arrive as sent). WebSocket upgrades on ' +
  'the same prefix are relayed too, with the token as the Authorization header, the `access_token` query parameter or a ' +
  '`bearer.<token>` subprotocol. 404 for an unknown service, 503 `dependency_unavailable` when the service cannot be reached.';

/**
 * Documents the pass-through prefix in the gateway's OpenAPI document (it is served by the
 * platform proxy before the JSON parser, not by this router).
 */
export function documentPlatformRoutes(api: ApiRouter): void {
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as HttpMethod[]) {
    api.document({
      method,
      path: '/platform/:service/:path',
      summary: `${method.toUpperCase()} on a platform service, through the gateway`,
      description: DESCRIPTION,
      tags: ['platform'],
      // The service decides: a public path (health) needs no token, the others the service's permission.
      access: 'public',
      params: Params,
      responses: {
        200: { description: "The service's answer, whatever its status" },
        404: { description: 'No such service' },
        413: { description: 'The body is too large' },
        503: { description: 'The service cannot be reached' },
      },
    });
  }
}
