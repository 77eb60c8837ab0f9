import { ErrorBody, master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { caller, permission } from '../access';
import type { AgentsService } from './agents.service';

const invalidManifest = { description: 'The manifest is invalid: details.issues name each JSON path', schema: ErrorBody };

export function agentRoutes(api: ApiRouter, agents: AgentsService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/agents',
      summary: 'List agents',
      description:
        "Only the agents the caller may read: their own, their teams' and the agents mirrored from federation peers (all with agents:admin). " +
        'Filters: type (manifest kind), capability (declared security capability), status (metadata.status), q (search text in ' +
        'name, namespace and description), visibility, origin (local by default, a peer URL, or all). sort: name, createdAt, ' +
        'updatedAt, `-` for descending. Paged with limit (default 50, max 500) and offset.',
      tags: ['agents'],
      access: permission.agentsRead,
      before: limit,
      query: master.AgentListQuery,
      responses: { 200: { description: 'A page of agents', schema: master.AgentPage } },
      handler: (req) => agents.list(caller(req), req.valid.query),
    })
    .route({
      method: 'post',
      path: '/agents',
      summary: 'Declare an agent from its manifest',
      description:
        'The body is the manifest (spec 1), validated by @platform/manifest. metadata.namespace (default "default") and metadata.name name the agent. ' +
        'The caller owns it; `team` (query) shares it with a team the caller is an editor of.',
      tags: ['agents'],
      access: permission.agentsWrite,
      before: limit,
      query: master.AgentCreateQuery,
      body: master.ManifestDocument,
      responses: {
        201: { description: 'Created', schema: master.Agent },
        400: invalidManifest,
        403: { description: 'The caller is not an editor of the team', schema: ErrorBody },
        409: { description: 'An agent of that namespace and name exists', schema: ErrorBody },
      },
      handler: (req) => agents.create(caller(req), req.valid.body, req.valid.query.team),
    })
    .route({
      method: 'get',
      path: '/agents/:agentId',
      summary: 'Get an agent with its manifest and state',
      description: 'An agent the caller may not read answers 404, as one that does not exist.',
      tags: ['agents'],
      access: permission.agentsRead,
      before: limit,
      params: master.AgentParams,
      responses: { 200: { description: 'The agent', schema: master.Agent }, 404: { description: 'No such agent', schema: ErrorBody } },
      handler: (req) => agents.get(caller(req), req.valid.params.agentId),
    })
    .route({
      method: 'put',
      path: '/agents/:agentId',
      summary: "Replace an agent's manifest",
      description:
        'The body is the new manifest. A new manifest clears the previous certification state. Mirrored agents are read-only (409). ' +
        "Only the owner, an editor of the agent's team or agents:admin (403 for a reader).",
      tags: ['agents'],
      access: permission.agentsWrite,
      before: limit,
      params: master.AgentParams,
      body: master.ManifestDocument,
      responses: {
        200: { description: 'Replaced', schema: master.Agent },
        400: invalidManifest,
        403: { description: 'The caller may read the agent but not change it', schema: ErrorBody },
        404: { description: 'No such agent', schema: ErrorBody },
        409: { description: 'Read-only mirror, or the new name is taken', schema: ErrorBody },
      },
      handler: (req) => agents.replace(caller(req), req.valid.params.agentId, req.valid.body),
    })
    .route({
      method: 'delete',
      path: '/agents/:agentId',
      summary: 'Delete an agent',
      description:
        'Refused with 409 while a pending or running orchestration execution uses the agent (details.executions). ' +
        "Only the owner, an editor of the agent's team or agents:admin (403 for a reader).",
      tags: ['agents'],
      access: permission.agentsWrite,
      before: limit,
      params: master.AgentParams,
      responses: {
        204: { description: 'Deleted' },
        403: { description: 'The caller may read the agent but not delete it', schema: ErrorBody },
        404: { description: 'No such agent', schema: ErrorBody },
        409: { description: 'In use by a running orchestration, or a read-only mirror', schema: ErrorBody },
      },
      handler: (req) => agents.delete(caller(req), req.valid.params.agentId),
    });
}
