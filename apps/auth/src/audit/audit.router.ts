import { auth } from '@platform/contracts';
import { ApiRouter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { AuditLog } from './audit.service';

export function auditRouter(verifier: TokenVerifier, audit: AuditLog): ApiRouter {
  return new ApiRouter(verifier).route({
    method: 'get',
    path: '/audit',
    summary: 'Query the audit log of authentication events',
    tags: ['admin'],
    access: { permission: 'audit:read' },
    query: auth.AuditQuery,
    responses: { 200: { description: 'Events, newest first', schema: auth.AuditList } },
    handler: (req) => audit.query(req.valid.query),
  });
}
