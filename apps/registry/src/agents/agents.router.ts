import { ErrorBody, registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller, READ, WRITE } from '../access';
import type { RouteContext } from '../routes';
import type { AgentsService } from './agents.service';
import { agentBody } from './agents.view';

/** The agent's own routes; publishing (`POST /agents`) creates a version and is declared in versions.router.ts. */
export function agentRoutes(api: ApiRouter, agents: AgentsService, ctx: RouteContext): void {
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
      description:
        'Changes displayName, summary, homepage, repository, keywords and compliance (never a manifest); null clears a field. Owner or registry:admin.',
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
