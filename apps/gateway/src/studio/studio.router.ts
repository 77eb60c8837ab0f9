import { ErrorBody, gateway, PageQuery } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller } from '../access/caller';
import type { StudioService } from './studio.service';

const tags = ['studio'];
const read = { permission: 'studio:read' };
const write = { permission: 'studio:write' };
const common = {
  401: { description: 'No valid token or API key', schema: ErrorBody },
  403: { description: 'Lacking the permission', schema: ErrorBody },
  429: { description: 'Rate limited', schema: ErrorBody },
};

export function studioRoutes(api: ApiRouter, studio: StudioService): void {
  api
    .route({
      method: 'post',
      path: '/studio/sessions',
      summary: 'Open a remote coding session',
      tags,
      access: write,
      body: gateway.CreateSessionBody,
      responses: { 201: { description: 'Opened', schema: gateway.StudioSession }, 400: { description: 'Invalid body', schema: ErrorBody }, ...common },
      handler: (req) => studio.create(caller(req), req.valid.body),
    })
    .route({
      method: 'get',
      path: '/studio/sessions',
      summary: "The sessions the caller may read (their own and their teams'; all with studio:admin) with their tasks",
      tags,
      access: read,
      query: PageQuery.strict(),
      responses: { 200: { description: 'A page of sessions', schema: gateway.SessionPage }, ...common },
      handler: (req) => studio.list(caller(req), req.valid.query),
    })
    .route({
      method: 'get',
      path: '/studio/sessions/:sessionId',
      summary: 'A session and the state of its tasks',
      tags,
      access: read,
      params: gateway.SessionParams,
      responses: { 200: { description: 'The session', schema: gateway.StudioSession }, 404: { description: 'No such session', schema: ErrorBody }, ...common },
      handler: (req) => studio.get(caller(req), req.valid.params.sessionId),
    })
    .route({
      method: 'post',
      path: '/studio/sessions/:sessionId/tasks',
      summary: 'Queue a task for the coding agent of the session',
      tags,
      access: write,
      params: gateway.SessionParams,
      body: gateway.CreateTaskBody,
      responses: {
        202: { description: 'Queued', schema: gateway.StudioTask },
        400: { description: 'Invalid body', schema: ErrorBody },
        404: { description: 'No such session', schema: ErrorBody },
        ...common,
      },
      handler: (req) => studio.addTask(caller(req), req.valid.params.sessionId, req.valid.body.instruction),
    })
    .route({
      method: 'get',
      path: '/studio/sessions/:sessionId/tasks/:taskId',
      summary: "A task's state and result",
      tags,
      access: read,
      params: gateway.TaskParams,
      responses: { 200: { description: 'The task', schema: gateway.StudioTask }, 404: { description: 'No such task', schema: ErrorBody }, ...common },
      handler: (req) => studio.getTask(caller(req), req.valid.params.sessionId, req.valid.params.taskId),
    });
}
