import { mcpRegistry } from '@platform/contracts';
import { SocketGateway } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { WebSocket } from 'ws';
import type { EventBus, RegistryEvent } from '../events/event-bus';

export const STREAM_PATH = '/registry/stream';
const READ_PERMISSION = 'mcp:read';

function send(ws: WebSocket, message: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

/**
 * `/registry/stream` on the platform's SocketGateway (token and `mcp:read` checked before the
 * upgrade, sockets per caller capped, a socket closed with 4401 when its token expires and 4403
 * when it is revoked): clients subscribe to event kinds and receive them as they happen on any
 * replica (the events come from Redis pub/sub through the EventBus).
 */
export function createRegistryStream(verifier: TokenVerifier, events: EventBus, logger: Logger, options: { maxPerUser: number }) {
  const subscriptions = new Map<WebSocket, Set<string>>();
  const unsubscribe = events.on((event: RegistryEvent) => {
    for (const [ws, kinds] of subscriptions) if (kinds.has(event.type)) send(ws, event);
  });

  function onConnection(ws: WebSocket): void {
    const kinds = new Set<string>();
    subscriptions.set(ws, kinds);
    ws.on('close', () => subscriptions.delete(ws));
    ws.on('message', (data) => {
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch {
        return send(ws, { type: 'error', error: { code: 'invalid_message', message: 'Messages must be JSON' } });
      }
      const parsed = mcpRegistry.StreamSubscribe.safeParse(message);
      if (!parsed.success) {
        return send(ws, {
          type: 'error',
          error: {
            code: 'invalid_message',
            message: 'Send {"action":"subscribe","events":[...]} with kinds connection-status, health-check, capability-request',
            details: parsed.error.issues,
          },
        });
      }
      for (const kind of parsed.data.events) {
        if (parsed.data.action === 'subscribe') kinds.add(kind);
        else kinds.delete(kind);
      }
      send(ws, { type: parsed.data.action === 'subscribe' ? 'subscribed' : 'unsubscribed', events: [...kinds] });
    });
    send(ws, { type: 'welcome', events: mcpRegistry.StreamEventKind.options });
  }

  const gateway = new SocketGateway(verifier, logger, { maxPerUser: options.maxPerUser }).endpoint({
    path: STREAM_PATH,
    permission: READ_PERMISSION,
    onConnection,
  });
  return {
    attach: gateway.attach.bind(gateway),
    /** Open sockets. */
    get clients(): number {
      return gateway.size;
    },
    async close(): Promise<void> {
      unsubscribe();
      await gateway.close();
    },
  };
}
