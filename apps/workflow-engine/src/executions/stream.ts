import { notFound, SocketGateway, type Caller } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { WebSocket } from 'ws';
import type { EventBus, StreamEvent } from './event-bus';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FINAL = new Set(['workflow-completed', 'workflow-failed', 'batch-completed']);

export interface StreamSource {
  /** Throws the not-found answer unless the caller may read the run or batch. */
  authorize: (id: string, caller: Caller) => Promise<void>;
  history: (id: string) => Promise<StreamEvent[]>;
}

/**
 * Sends a late subscriber what already happened (from Postgres), then what happens next (Redis
 * pub/sub), without duplicates: live events are buffered while the history is read.
 */
async function follow(ws: WebSocket, events: EventBus, topic: string, source: StreamSource, id: string, key: (event: StreamEvent) => string): Promise<void> {
  const sent = new Set<string>();
  const buffer: StreamEvent[] = [];
  let live = false;
  const send = (event: StreamEvent) => {
    const k = key(event);
    if (k && sent.has(k)) return;
    if (k) sent.add(k);
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
    if (FINAL.has(event.type) && ws.readyState === ws.OPEN) ws.close(1000, event.type);
  };
  const unsubscribe = await events.on(topic, (event) => (live ? send(event) : buffer.push(event)));
  ws.on('close', unsubscribe);
  for (const event of await source.history(id)) send(event);
  for (const event of buffer) send(event);
  live = true;
}

export function createStreams(verifier: TokenVerifier, logger: Logger, events: EventBus, executions: StreamSource, batches: StreamSource): SocketGateway {
  const authorize =
    (source: StreamSource, what: string) =>
    async ({ params, claims }: { params: Record<string, string>; claims: Caller }) => {
      // Only who may read the run (or batch) follows it; anyone else is told it does not exist.
      if (!UUID.test(params.id)) throw notFound(`No ${what} ${params.id}`);
      await source.authorize(params.id, claims);
    };
  const onError = (ws: WebSocket) => (error: unknown) => {
    logger.warn({ err: error }, 'stream failed');
    ws.close(1011, 'stream failed');
  };
  return new SocketGateway(verifier, logger)
    .endpoint({
      path: '/api/v1/executions/:id/stream',
      permission: 'workflows:read',
      authorize: authorize(executions, 'execution'),
      onConnection: (ws, { params }) =>
        void follow(ws, events, `execution:${params.id}`, executions, params.id, (event) =>
          event.type === 'node-retrying' ? '' : `${event.type}:${String(event.nodeId ?? '')}`,
        ).catch(onError(ws)),
    })
    .endpoint({
      path: '/api/v1/batches/:id/stream',
      permission: 'workflows:read',
      authorize: authorize(batches, 'batch'),
      onConnection: (ws, { params }) =>
        void follow(ws, events, `batch:${params.id}`, batches, params.id, (event) =>
          event.type === 'batch-progress' ? `progress:${JSON.stringify(event.progress)}` : event.type,
        ).catch(onError(ws)),
    });
}
