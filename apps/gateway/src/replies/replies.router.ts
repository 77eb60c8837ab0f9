import { ErrorBody, gateway } from '@platform/contracts';
import { notFound, type ApiRouter } from '@platform/http';
import type { AgentsService } from '../agents/agents.service';
import type { StudioService } from '../studio/studio.service';
import type { ReplyHub } from './reply-hub';

/** Where agents answer the tasks the gateway sent them: the signed token in the path is the credential. */
export function replyRoutes(api: ApiRouter, hub: ReplyHub, agents: AgentsService, studio: StudioService): void {
  api.route({
    method: 'post',
    path: '/replies/:token',
    summary: 'An agent answers a task (the reply URL it received with the task); not in the spec',
    tags: ['replies'],
    access: 'public',
    params: gateway.ReplyParams,
    body: gateway.ReplyBody,
    responses: { 202: { description: 'Recorded' }, 404: { description: 'Unknown, expired or answered', schema: ErrorBody } },
    handler: async (req) => {
      const target = hub.verify(req.valid.params.token);
      if (!target) throw notFound('No task waits for this reply');
      const recorded = target.kind === 'execution' ? await agents.reply(target.id, req.valid.body) : await studio.reply(target.id, req.valid.body);
      if (!recorded) throw notFound('No task waits for this reply');
      return { accepted: true };
    },
  });
}
