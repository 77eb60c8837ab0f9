import { mesh, PageQuery } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { agentRule } from '../access';
import type { AgentsRepository } from '../agents/agents.repository';
import { callerOf } from '../agents/agents.router';
import type { AgentsService } from '../agents/agents.service';
import type { HealthRepository } from './health.repository';

const read = { permission: 'mesh:read' };
const admin = { permission: 'mesh:admin' };
const tags = ['health'];

export function healthRoutes(
  api: ApiRouter,
  deps: {
    agents: AgentsService;
    agentRows: AgentsRepository;
    history: HealthRepository;
    serviceHealth: () => Promise<{ status: number; body: Record<string, unknown> }>;
    reset: () => Promise<number>;
  },
): void {
  api
    .route({
      method: 'get',
      path: '/health',
      summary: 'Service health (as /health)',
      tags,
      access: 'public',
      responses: { 200: { description: 'Healthy' }, 503: { description: 'A dependency is down or the node drains' } },
      handler: async (_req, res) => {
        const { status, body } = await deps.serviceHealth();
        res.status(status).json(body);
      },
    })
    .route({
      method: 'get',
      path: '/health/all',
      summary: 'Health of every registered agent the caller may read',
      tags,
      access: read,
      query: PageQuery,
      responses: { 200: { description: 'Agents and their health', schema: mesh.HealthAll } },
      handler: async (req) => {
        const { limit, offset } = req.valid.query;
        const scope = agentRule.readScope(callerOf(req));
        const [rows, total] = await Promise.all([deps.agentRows.list({}, limit, offset, scope), deps.agentRows.count({}, scope)]);
        return {
          agents: rows.map((row) => ({
            agent_id: row.id,
            status: row.status as 'passing',
            ejected: row.ejected,
            last_check_at: row.lastCheckAt?.toISOString() ?? null,
            latency_ms: row.latencyMs,
          })),
          total,
          limit,
          offset,
        };
      },
    })
    .route({
      method: 'post',
      path: '/health/reset',
      summary: 'Every agent back to passing and routable; counters start over',
      tags,
      access: admin,
      responses: { 200: { description: 'How many agents were reset', schema: mesh.HealthReset } },
      handler: async () => ({ reset: await deps.reset() }),
    })
    .route({
      method: 'get',
      path: '/agents/:agent_id/health/history',
      summary: 'Recent health checks of an agent (status, latency, time), newest first',
      tags,
      access: read,
      params: mesh.AgentParams,
      query: PageQuery,
      responses: { 200: { description: 'Checks', schema: mesh.HealthHistory }, 404: { description: 'No such agent' } },
      handler: async (req) => {
        const agentId = req.valid.params.agent_id;
        await deps.agents.get(agentId, callerOf(req));
        const { limit, offset } = req.valid.query;
        const [rows, total] = await Promise.all([deps.history.history(agentId, limit, offset), deps.history.count(agentId)]);
        return {
          agent_id: agentId,
          checks: rows.map((row) => ({
            kind: row.kind,
            status: row.status,
            latency_ms: row.latencyMs,
            output: row.output,
            checked_at: row.checkedAt.toISOString(),
          })),
          total,
          limit,
          offset,
        };
      },
    });
}
