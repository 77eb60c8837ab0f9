import { ErrorBody, registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller, READ, WRITE } from '../access';
import type { RouteContext } from '../routes';
import type { CertificationsService } from './certifications.service';

export function certificationRoutes(api: ApiRouter, certifications: CertificationsService, ctx: RouteContext): void {
  api
    .route({
      method: 'get',
      path: '/certifications',
      summary: 'List certifications with their status and check results',
      description: 'Newest first; filters namespace, name, status (queued, running, passed, failed, error).',
      tags: ['certifications'],
      access: { permission: READ },
      before: ctx.limit,
      query: registry.CertificationListQuery,
      responses: { 200: { description: 'A page of certifications', schema: registry.CertificationPage } },
      handler: (req) => certifications.list(req.valid.query),
    })
    .route({
      method: 'post',
      path: '/certifications/:namespace/:name/request',
      summary: 'Request certification of an agent version',
      description:
        'Queues a job (queue registry.certifications) that checks the stored manifest: published, valid, signature verified ' +
        '(required for tier_3 and tier_4, a warning otherwise), security posture declared, sandboxing for tier_3/tier_4, threat model ' +
        'for tier_4 (critical and high threats mitigated), resource limits declared, status active. Body: {version?} (default latest).',
      tags: ['certifications'],
      access: { permission: WRITE },
      before: ctx.limit,
      params: registry.AgentParams,
      body: registry.CertificationRequestBody,
      responses: {
        201: { description: 'Queued', schema: registry.Certification },
        404: { description: 'No such agent or version', schema: ErrorBody },
        503: { description: 'The queue is unavailable', schema: ErrorBody },
      },
      handler: (req) => certifications.request(caller(req), req.valid.params.namespace, req.valid.params.name, req.valid.body),
    });
}
