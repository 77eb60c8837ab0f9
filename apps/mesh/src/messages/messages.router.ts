import { mesh } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { agentRule } from '../access';
import { callerOf } from '../agents/agents.router';
import type { MessageFilter } from './messages.repository';
import type { MessagesService } from './messages.service';

const read = { permission: 'mesh:read' };
const write = { permission: 'mesh:write' };
const admin = { permission: 'mesh:admin' };
const tags = ['messages'];

function filterOf(query: { state?: string; agent_id?: string; capability?: string; message_id?: string; since?: string }): MessageFilter {
  return {
    state: query.state,
    agentId: query.agent_id,
    capability: query.capability,
    messageId: query.message_id,
    since: query.since ? new Date(query.since) : undefined,
  };
}

export function messageRoutes(api: ApiRouter, messages: MessagesService): void {
  api
    .route({
      method: 'post',
      path: '/messages',
      summary: 'Send a message to an agent (`to`) or the best agent of a capability; not in the spec, see README',
      description: 'A `message_id` already accepted inside the de-duplication window answers the first message (`duplicate: true`) and sends nothing.',
      tags,
      access: write,
      body: mesh.SendMessageBody,
      responses: {
        202: { description: 'Accepted (or a duplicate of one accepted)', schema: mesh.SendResult },
        400: { description: 'Invalid body' },
        404: { description: 'No such agent' },
        503: { description: 'No routable agent for the capability, or the node drains' },
      },
      handler: (req) => messages.send(req.valid.body, callerOf(req)),
    })
    .route({
      method: 'get',
      path: '/messages',
      summary: 'Messages and their delivery state, newest first: those the caller sent, and those to agents it may read',
      tags,
      access: read,
      query: mesh.MessageListQuery,
      responses: { 200: { description: 'A page of messages', schema: mesh.MessageList } },
      handler: (req) => {
        const { limit, offset, ...query } = req.valid.query;
        return messages.list(filterOf(query), limit, offset, agentRule.readScope(callerOf(req)));
      },
    })
    .route({
      method: 'get',
      path: '/messages/failed',
      summary: 'Messages that failed for good (dead letters and expired)',
      tags,
      access: read,
      query: mesh.MessageListQuery.omit({ state: true }),
      responses: { 200: { description: 'A page of failed messages', schema: mesh.MessageList } },
      handler: (req) => {
        const { limit, offset, ...query } = req.valid.query;
        return messages.list({ ...filterOf(query), states: ['dead', 'expired'] }, limit, offset, agentRule.readScope(callerOf(req)));
      },
    })
    .route({
      method: 'get',
      path: '/messages/export',
      summary: "Every matching message as NDJSON, streamed (every sender's payloads: mesh:admin only)",
      tags,
      access: admin,
      query: mesh.ExportQuery,
      responses: { 200: { description: 'One message per line', schema: mesh.MeshMessage, contentTypes: ['application/x-ndjson'] } },
      handler: async (req, res) => {
        const { limit, ...query } = req.valid.query;
        res.status(200).setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
        res.setHeader('Content-Disposition', 'attachment; filename="mesh-messages.ndjson"');
        let closed = false;
        res.once('close', () => (closed = true));
        try {
          for await (const line of messages.export(filterOf(query), limit)) {
            if (closed) break;
            if (!res.write(line)) await new Promise((resolve) => res.once('drain', resolve));
          }
        } catch {
          // Headers are gone: end the stream with an error line the reader can see.
          res.write(`${JSON.stringify({ error: { type: 'api_error', code: 'export_failed', message: 'The export stopped early' } })}\n`);
        }
        res.end();
        return undefined;
      },
    })
    .route({
      method: 'post',
      path: '/messages/dedupe',
      summary: 'Remove stored duplicates (same message id), keeping the first; reports what was removed',
      tags,
      access: admin,
      responses: { 200: { description: 'Duplicates removed', schema: mesh.DedupeResult } },
      handler: () => messages.dedupe(),
    });
}

export function queueRoutes(api: ApiRouter, messages: MessagesService, inFlight: () => number): void {
  const queueTags = ['queues'];
  api
    .route({
      method: 'get',
      path: '/queues/stats',
      summary: 'Messages by state (Postgres) and delivery jobs by state (BullMQ)',
      tags: queueTags,
      access: read,
      responses: { 200: { description: 'Statistics', schema: mesh.QueueStats } },
      handler: () => messages.stats(inFlight()),
    })
    .route({
      method: 'get',
      path: '/queues/depth',
      summary: 'Messages waiting per agent, deepest first (the messages the caller may read)',
      tags: queueTags,
      access: read,
      responses: { 200: { description: 'Depth per agent', schema: mesh.QueueDepth } },
      handler: (req) => messages.depth(agentRule.readScope(callerOf(req))),
    })
    .route({
      method: 'get',
      path: '/queues/dlq',
      summary: 'Dead letters: messages that ran out of delivery attempts, with their reason',
      tags: queueTags,
      access: read,
      query: mesh.MessageListQuery.omit({ state: true }),
      responses: { 200: { description: 'A page of dead letters', schema: mesh.MessageList } },
      handler: (req) => {
        const { limit, offset, ...query } = req.valid.query;
        return messages.list({ ...filterOf(query), state: 'dead' }, limit, offset, agentRule.readScope(callerOf(req)));
      },
    })
    .route({
      method: 'post',
      path: '/queues/dlq/retry',
      summary: 'Send dead letters back to their queues (`all: true` or `ids`)',
      tags: queueTags,
      access: admin,
      body: mesh.DlqRetryBody,
      responses: { 200: { description: 'Queued again', schema: mesh.DlqRetryResult }, 400: { description: 'Neither ids nor all' } },
      handler: (req) => messages.retryDead(req.valid.body.all ? undefined : req.valid.body.ids),
    })
    .route({
      method: 'delete',
      path: '/queues/purge',
      summary: 'Remove finished messages (acked, dead, expired) older than `older_than`',
      tags: queueTags,
      access: admin,
      query: mesh.PurgeQuery,
      responses: { 200: { description: 'How many were removed', schema: mesh.PurgeResult }, 400: { description: 'Bad duration' } },
      handler: (req) => messages.purge(req.valid.query.older_than),
    });
}
