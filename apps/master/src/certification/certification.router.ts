import { ErrorBody, master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { caller, permission } from '../access';
import type { CertificationService } from './certification.service';

export function certificationRoutes(api: ApiRouter, certification: CertificationService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'post',
      path: '/certification/request',
      summary: 'Request certification of an agent (through the registry)',
      description:
        "Publishes the agent's manifest to the registry when that version is not there yet, then asks the registry to certify it, in the " +
        "caller's name (a token delegated for them): they need registry:write there. The manifest needs metadata.namespace and metadata.version. Only the agent's owner, " +
        'an editor of its team or agents:admin may (403 for a reader; 404 when the caller may not read the agent).',
      tags: ['certification'],
      access: permission.certificationWrite,
      before: limit,
      body: master.CertificationRequestBody,
      responses: {
        202: { description: 'Queued by the registry', schema: master.Certification },
        400: { description: 'Not certifiable as declared', schema: ErrorBody },
        403: { description: 'The caller may read the agent but not change it, or the registry refused the caller', schema: ErrorBody },
        404: { description: 'No such agent', schema: ErrorBody },
        503: { description: 'The registry is unreachable', schema: ErrorBody },
      },
      handler: (req) => certification.request(caller(req), req.valid.body.agentId, req.valid.body.version),
    })
    .route({
      method: 'get',
      path: '/certification/:certificationId',
      summary: 'A certification with its per-check report',
      description: 'Mirrored from the registry until final (passed, failed, error). Read by whoever may read its agent (404 otherwise).',
      tags: ['certification'],
      access: permission.certificationRead,
      before: limit,
      params: master.CertificationParams,
      responses: { 200: { description: 'The certification', schema: master.Certification }, 404: { description: 'No such certification', schema: ErrorBody } },
      handler: (req) => certification.get(caller(req), req.valid.params.certificationId),
    });
}
