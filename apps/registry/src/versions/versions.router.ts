import { ErrorBody, registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { z } from 'zod';
import { caller, READ, WRITE } from '../access';
import type { RouteContext } from '../routes';
import { sendManifest } from './manifest-response';
import type { VersionsService } from './versions.service';

const PUBLISH_DESCRIPTION =
  'The body is the manifest (spec 1): a JSON object with Content-Type application/json, or YAML text with ' +
  'Content-Type application/yaml (text/yaml, application/x-yaml; text/plain is detected). The bytes are stored as sent and ' +
  'served back unchanged. metadata.namespace and metadata.version are required. 400 lists the validation errors in ' +
  'error.details.issues (path, message, code); 409 when the version exists or existed. Publishing into an existing namespace needs its ' +
  'owner, an editor of its team or registry:admin (404 to others, 403 to a team viewer).';

const ExactVersionParams = registry.AgentParams.extend({ version: registry.SemanticVersion });

/** Versions and publishing (a publish creates a version, through `POST /agents` also the agent). */
export function versionRoutes(api: ApiRouter, versions: VersionsService, ctx: RouteContext): void {
  api
    .route({
      method: 'post',
      path: '/agents',
      summary: 'Publish an agent (its first or a new version)',
      description: PUBLISH_DESCRIPTION,
      tags: ['agents'],
      access: { permission: WRITE },
      before: ctx.limit,
      query: registry.PublishQuery,
      body: registry.PublishBody,
      responses: {
        201: { description: 'Published', schema: registry.PublishResult },
        403: { description: 'A viewer of the namespace, or `team` names a team the caller does not edit', schema: ErrorBody },
        404: { description: 'The namespace is not one the caller may publish in', schema: ErrorBody },
        409: { description: 'The version exists or existed, or the namespace is shared with another team', schema: ErrorBody },
        413: { description: 'The manifest is too large', schema: ErrorBody },
        415: { description: 'Neither JSON nor YAML', schema: ErrorBody },
      },
      handler: (req) => versions.publish(caller(req), req.rawManifest ?? { error: 'unreadable' }, undefined, req.valid.query.team),
    })
    .route({
      method: 'get',
      path: '/agents/:namespace/:name/versions',
      summary: 'List the versions of an agent',
      description: 'In semantic-version order (highest first unless order=asc); `latest` names the highest published non-prerelease.',
      tags: ['versions'],
      access: { permission: READ },
      before: ctx.limit,
      params: registry.AgentParams,
      query: registry.VersionListQuery,
      responses: { 200: { description: 'A page of versions', schema: registry.VersionPage }, 404: { description: 'No such agent', schema: ErrorBody } },
      handler: (req) => versions.list(req.valid.params.namespace, req.valid.params.name, req.valid.query),
    })
    .route({
      method: 'post',
      path: '/agents/:namespace/:name/versions',
      summary: 'Publish a new version of an agent',
      description:
        'The body is the manifest, as for POST /agents (JSON, or YAML with Content-Type application/yaml). metadata.name must be the ' +
        'path name and metadata.namespace, when set, the path namespace. The agent must exist (404 otherwise).',
      tags: ['versions'],
      access: { permission: WRITE },
      before: ctx.limit,
      params: registry.AgentParams,
      body: registry.PublishBody,
      responses: {
        201: { description: 'Published', schema: registry.PublishResult },
        404: { description: 'No such agent', schema: ErrorBody },
        409: { description: 'The version exists or existed', schema: ErrorBody },
        413: { description: 'The manifest is too large', schema: ErrorBody },
        415: { description: 'Neither JSON nor YAML', schema: ErrorBody },
      },
      handler: (req) => versions.publish(caller(req), req.rawManifest ?? { error: 'unreadable' }, req.valid.params),
    })
    .route({
      method: 'get',
      path: '/agents/:namespace/:name/versions/:version',
      summary: 'Get one version (or latest) with its manifest document',
      tags: ['versions'],
      access: { permission: READ },
      before: ctx.limit,
      params: registry.VersionParams,
      responses: { 200: { description: 'The version', schema: registry.VersionDetail }, 404: { description: 'No such version', schema: ErrorBody } },
      handler: async (req) => {
        const { agent, body } = await versions.get(req.valid.params.namespace, req.valid.params.name, req.valid.params.version);
        ctx.usage.view(agent.id);
        return body;
      },
    })
    .route({
      method: 'delete',
      path: '/agents/:namespace/:name/versions/:version',
      summary: 'Unpublish a version',
      description: 'The version disappears from reads; its number is never reused (a later publish of it is a 409). Owner or registry:admin.',
      tags: ['versions'],
      access: { permission: WRITE },
      before: ctx.limit,
      params: ExactVersionParams,
      responses: { 204: { description: 'Unpublished' }, 404: { description: 'No such version', schema: ErrorBody } },
      handler: async (req, res) => {
        await versions.unpublish(caller(req), req.valid.params.namespace, req.valid.params.name, req.valid.params.version);
        res.status(204).end();
      },
    })
    .route({
      method: 'get',
      path: '/agents/:namespace/:name/versions/:version/manifest',
      summary: 'Download the manifest file',
      description:
        'The manifest byte for byte as published, in its stored format when Accept allows it (or says nothing). Asking for the other ' +
        'format (application/json or application/yaml) returns a conversion made once at publish time, marked X-Manifest-Converted: true. ' +
        'Strong ETag per representation; If-None-Match answers 304. 406 when neither format is acceptable.',
      tags: ['versions'],
      access: { permission: READ },
      before: ctx.limit,
      params: registry.VersionParams,
      headers: z.object({ 'if-none-match': z.string().optional(), accept: z.string().optional() }),
      responses: {
        200: { description: 'The manifest file', schema: z.string(), contentTypes: ['application/json', 'application/yaml'] },
        304: { description: 'Not modified (If-None-Match matched the ETag)' },
        404: { description: 'No such version', schema: ErrorBody },
        406: { description: 'Neither JSON nor YAML is acceptable', schema: ErrorBody },
      },
      handler: async (req, res) => {
        const manifest = await versions.manifest(req.valid.params.namespace, req.valid.params.name, req.valid.params.version);
        const sent = sendManifest(req, res, {
          stored: manifest.format,
          manifestBytes: manifest.manifestBytes,
          digest: manifest.digest,
          convertedBytes: manifest.convertedBytes,
          convertedDigest: manifest.convertedDigest,
          mutable: req.valid.params.version === 'latest',
        });
        if (sent && req.method === 'GET') ctx.usage.download(manifest.agentId);
      },
    });
}
