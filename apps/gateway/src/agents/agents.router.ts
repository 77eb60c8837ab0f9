import { ErrorBody, gateway } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller } from '../access/caller';
import type { AgentsService } from './agents.service';

const tags = ['agents'];
const read = { permission: 'agents:read' };
const write = { permission: 'agents:write' };
const failures = {
  401: { description: 'No valid token or API key', schema: ErrorBody },
  403: { description: 'Lacking the permission', schema: ErrorBody },
  429: { description: 'Rate limited', schema: ErrorBody },
};
const upstream = {
  502: { description: 'A step failed (details name it and the service); earlier steps were undone', schema: ErrorBody },
  503: { description: 'A dependency is unavailable', schema: ErrorBody },
};

export function agentRoutes(api: ApiRouter, agents: AgentsService): void {
  api
    .route({
      method: 'post',
      path: '/agents',
      summary: 'Create an agent: publish, record in master, register with the mesh, start tracing, deploy',
      tags,
      access: write,
      body: gateway.CreateAgentBody,
      responses: {
        201: { description: 'Created; `steps` reports each step', schema: gateway.GatewayAgent },
        400: { description: 'Invalid manifest or body', schema: ErrorBody },
        409: { description: 'The agent exists', schema: ErrorBody },
        ...failures,
        ...upstream,
      },
      handler: (req) => agents.create(caller(req), req.valid.body),
    })
    .route({
      method: 'get',
      path: '/agents',
      summary: "Agents created through the gateway that the caller may read (their own and their teams'; all with agents:admin)",
      tags,
      access: read,
      query: gateway.AgentListQuery,
      responses: { 200: { description: 'A page of agents', schema: gateway.AgentPage }, ...failures },
      handler: (req) => agents.list(caller(req), req.valid.query),
    })
    .route({
      method: 'get',
      path: '/agents/:agentId',
      summary: 'An agent, its references in every service and its last steps',
      tags,
      access: read,
      params: gateway.AgentParams,
      responses: { 200: { description: 'The agent', schema: gateway.GatewayAgent }, 404: { description: 'No such agent', schema: ErrorBody }, ...failures },
      handler: (req) => agents.get(caller(req), req.valid.params.agentId),
    })
    .route({
      method: 'put',
      path: '/agents/:agentId',
      summary: 'Update the manifest (a new version) and/or the deployment, in every service',
      tags,
      access: write,
      params: gateway.AgentParams,
      body: gateway.UpdateAgentBody,
      responses: {
        200: { description: 'Updated', schema: gateway.GatewayAgent },
        400: { description: 'Invalid body', schema: ErrorBody },
        404: { description: 'No such agent', schema: ErrorBody },
        409: { description: 'Not active, or same version', schema: ErrorBody },
        ...failures,
        ...upstream,
      },
      handler: (req) => agents.update(caller(req), req.valid.params.agentId, req.valid.body),
    })
    .route({
      method: 'delete',
      path: '/agents/:agentId',
      summary: 'Undeploy, deregister and delete the agent everywhere',
      tags,
      access: write,
      params: gateway.AgentParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such agent', schema: ErrorBody }, ...failures, ...upstream },
      handler: async (req) => {
        await agents.remove(caller(req), req.valid.params.agentId);
      },
    })
    .route({
      method: 'post',
      path: '/agents/:agentId/execute',
      summary: "Send a task to the agent through the mesh and answer with the agent's response",
      tags,
      access: { permission: 'agents:execute' },
      params: gateway.AgentParams,
      body: gateway.ExecuteBody,
      responses: {
        200: { description: "The agent's response", schema: gateway.ExecuteResult },
        400: { description: 'Invalid body', schema: ErrorBody },
        404: { description: 'No such agent', schema: ErrorBody },
        409: { description: 'The agent is not active', schema: ErrorBody },
        504: { description: 'The agent did not answer in time', schema: ErrorBody },
        ...failures,
        ...upstream,
      },
      handler: (req) => agents.execute(caller(req), req.valid.params.agentId, req.valid.body),
    });
}
