import { mesh } from '@platform/contracts';
import { notFound, type ApiRouter } from '@platform/http';
import type { Request } from 'express';
import { z } from 'zod';
import { agentRule, type Caller } from '../access';
import type { AgentsService } from './agents.service';

const read = { permission: 'mesh:read' };
const write = { permission: 'mesh:write' };
const admin = { permission: 'mesh:admin' };
const tags = ['agents'];

/** The verified caller (`requireAuth` ran): a delegated token is its subject, the user. */
export const callerOf = (req: Request): Caller => req.auth!;

export function agentRoutes(api: ApiRouter, agents: AgentsService, assertAccepting: () => void): void {
  api
    .route({
      method: 'post',
      path: '/agents',
      summary: 'Register an agent (or re-register the same id: its owner, a team editor or mesh:admin); not in the spec, see README',
      tags,
      access: write,
      body: mesh.RegisterAgentBody,
      responses: {
        201: { description: 'Registered', schema: mesh.MeshAgent },
        400: { description: 'Invalid body' },
        403: { description: "A viewer of the agent's team, or a team the caller may not share with" },
        404: { description: 'An id registered by someone the caller may not read' },
        503: { description: 'Draining' },
      },
      handler: (req) => {
        assertAccepting();
        return agents.register(req.valid.body, callerOf(req));
      },
    })
    .route({
      method: 'get',
      path: '/agents',
      summary: 'Registered agents',
      tags,
      access: read,
      query: mesh.AgentListQuery,
      responses: { 200: { description: 'A page of agents', schema: mesh.AgentList } },
      handler: (req) => {
        const { limit, offset, ...filter } = req.valid.query;
        return agents.list(filter, limit, offset, agentRule.readScope(callerOf(req)));
      },
    })
    .route({
      method: 'get',
      path: '/agents/count',
      summary: 'How many agents, by health',
      tags,
      access: read,
      responses: { 200: { description: 'Counts', schema: mesh.AgentCount } },
      handler: (req) => agents.counts(agentRule.readScope(callerOf(req))),
    })
    .route({
      method: 'post',
      path: '/agents/reregister',
      summary: 'Force re-registration: health starts over and subscribed agents are asked to Register again',
      tags,
      access: admin,
      body: mesh.ReregisterBody,
      responses: { 200: { description: 'Agents reset and notified', schema: mesh.ReregisterResult } },
      handler: (req) => agents.reregister(req.valid.body.agent_ids),
    })
    .route({
      method: 'delete',
      path: '/agents/:agent_id',
      summary: 'Deregister an agent; messages waiting for it become dead letters; not in the spec, see README',
      tags,
      access: write,
      params: mesh.AgentParams,
      responses: { 204: { description: 'Deregistered' }, 403: { description: 'Not the owner or a team editor' }, 404: { description: 'No such agent' } },
      handler: async (req, res) => {
        if (!(await agents.deregisterAs(req.valid.params.agent_id, callerOf(req)))) throw notFound(`No agent ${req.valid.params.agent_id}`);
        res.status(204).end();
      },
    })
    .route({
      method: 'put',
      path: '/agents/:agent_id/health',
      summary: 'The agent reports its own health (counts like a check)',
      tags: ['health'],
      access: write,
      params: mesh.AgentParams,
      body: mesh.SelfReportBody,
      responses: {
        200: { description: 'The agent now', schema: mesh.MeshAgent },
        403: { description: 'Not the owner or a team editor' },
        404: { description: 'No such agent' },
      },
      handler: async (req) => agents.view(await agents.report(req.valid.params.agent_id, req.valid.body.status, 'self', callerOf(req), req.valid.body.output)),
    });
}

export const AgentIdOnly = z.object({ agent_id: mesh.MeshAgentId });
