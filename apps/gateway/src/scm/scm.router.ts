import { ErrorBody, gateway } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { ScmService } from './scm.service';

const tags = ['scm'];
const common = {
  401: { description: 'No valid token or API key', schema: ErrorBody },
  403: { description: 'Lacking the permission', schema: ErrorBody },
  429: { description: 'Rate limited', schema: ErrorBody },
  502: { description: 'The source-control server failed (details.service = scm)', schema: ErrorBody },
  503: { description: 'No source-control server configured', schema: ErrorBody },
};

export function scmRoutes(api: ApiRouter, scm: ScmService): void {
  api
    .route({
      method: 'post',
      path: '/scm/pipelines',
      summary: 'Run a pipeline for a project and ref',
      tags,
      access: { permission: 'scm:write' },
      body: gateway.CreatePipelineBody,
      responses: { 202: { description: 'Started', schema: gateway.Pipeline }, 400: { description: 'Invalid body', schema: ErrorBody }, ...common },
      handler: (req) => scm.createPipeline(req.valid.body),
    })
    .route({
      method: 'get',
      path: '/scm/pipelines',
      summary: "A project's pipelines, newest first",
      tags,
      access: { permission: 'scm:read' },
      query: gateway.PipelineQuery,
      responses: { 200: { description: 'A page of pipelines', schema: gateway.PipelinePage }, ...common },
      handler: (req) => scm.listPipelines(req.valid.query),
    })
    .route({
      method: 'get',
      path: '/scm/packages',
      summary: 'Packages of a group or project (`scope`)',
      tags,
      access: { permission: 'scm:read' },
      query: gateway.PackageQuery,
      responses: { 200: { description: 'A page of packages', schema: gateway.PackagePage }, ...common },
      handler: (req) => scm.listPackages(req.valid.query),
    });
}
