import { ErrorBody, registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller, READ, WRITE } from '../access';
import { acceptManifest } from '../manifests/manifest-upload';
import type { RouteContext } from '../routes';
import { versionBody } from '../versions/versions.service';
import type { VersionsService } from '../versions/versions.service';
import { agentBody } from './agent-view';
import type { AgentsService } from './agents.service';

const PUBLISH_DESCRIPTION =
  'The body is the manifest (spec 1): a JSON object with Content-Type application/json, or YAML text with ' +
  'Content-Type application/yaml (text/yaml, application/x-yaml; text/plain is detected). The bytes are stored as sent and ' +
  'served back unchanged. metadata.namespace and metadata.version are required. 400 lists the validation errors in ' +
  'error.details.issues (path, message, code); 409 when the version exists or existed; 403 when another caller owns the namespace.';

export function agentRoutes(api: ApiRouter, agents: AgentsService, versions: VersionsService, ctx: RouteContext): void {
  api
    .route({
      method: 'get',
      path: '/agents',
      summary: 'List agents',
      description: 'Filters: namespace, certified, compliance (framework id), capability, kind, agentKind, tier. Ordered by namespace and name.',
      tags: ['agents'],
      access: { permission: READ },
      before: ctx.limit,
      query: registry.AgentListQuery,
      responses: { 200: { description: 'A page of agents with the total', schema: registry.AgentPage } },
      handler: async (req) => {
        const { items, total } = await agents.list(req.valid.query);
        return { items: items.map(agentBody), total, limit: req.valid.query.limit, offset: req.valid.query.offset };
      },
    })
    .route({
      method: 'post',
      path: '/agents',
      summary: 'Publish an agent (its first or a new version)',
      description: PUBLISH_DESCRIPTION,
      tags: ['agents'],
      access: { permission: WRITE },
      before: ctx.limit,
      body: registry.PublishBody,
      responses: {
        201: { description: 'Published', schema: registry.PublishResult },
        403: { description: 'The namespace belongs to another publisher', schema: ErrorBody },
        409: { description: 'The version exists or existed', schema: ErrorBody },
        413: { description: 'The manifest is too large', schema: ErrorBody },
        415: { description: 'Neither JSON nor YAML', schema: ErrorBody },
      },
      handler: async (req) => {
        const manifest = acceptManifest(req.rawManifest ?? { error: 'unreadable' });
        const published = await agents.publish(caller(req), manifest, undefined);
        return publishResult(versions, published);
      },
    })
    .route({
      method: 'get',
      path: '/agents/:namespace/:name',
      summary: 'Get an agent',
      tags: ['agents'],
      access: { permission: READ },
      before: ctx.limit,
      params: registry.AgentParams,
      responses: { 200: { description: 'The agent', schema: registry.Agent }, 404: { description: 'No such agent', schema: ErrorBody } },
      handler: async (req) => {
        const agent = await agents.get(req.valid.params.namespace, req.valid.params.name);
        ctx.usage.view(agent.id);
        return agentBody(agent);
      },
    })
    .route({
      method: 'put',
      path: '/agents/:namespace/:name',
      summary: 'Change agent-level metadata',
      description: 'Changes displayName, summary, homepage, repository, keywords and compliance (never a manifest); null clears a field. Owner or registry:admin.',
      tags: ['agents'],
      access: { permission: WRITE },
      before: ctx.limit,
      params: registry.AgentParams,
      body: registry.AgentUpdateBody,
      responses: {
        200: { description: 'The agent', schema: registry.Agent },
        404: { description: 'No such agent', schema: ErrorBody },
      },
      handler: async (req) => agentBody(await agents.update(caller(req), req.valid.params.namespace, req.valid.params.name, req.valid.body)),
    })
    .route({
      method: 'delete',
      path: '/agents/:namespace/:name',
      summary: 'Delete an agent',
      description: 'Unpublishes every version and removes the agent from reads; version numbers stay taken. Owner or registry:admin.',
      tags: ['agents'],
      access: { permission: WRITE },
      before: ctx.limit,
      params: registry.AgentParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such agent', schema: ErrorBody } },
      handler: async (req, res) => {
        await agents.remove(caller(req), req.valid.params.namespace, req.valid.params.name);
        res.status(204).end();
      },
    });
}

export async function publishResult(versions: VersionsService, published: { agent: Parameters<typeof agentBody>[0]; versionId: string; created: boolean }): Promise<registry.PublishResult> {
  const row = await versions.row(published.versionId);
  return { agent: agentBody(published.agent), version: versionBody(published.agent, row, null), created: published.created };
}
