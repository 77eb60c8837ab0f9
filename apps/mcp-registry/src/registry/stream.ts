import { mcpRegistry, type AccessTokenClaims } from '@platform/contracts';
import { SocketGateway, type Owned, type SocketContext } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { WebSocket } from 'ws';
import { connectionRule } from '../connections/connections.service';
import type { EventBus, RegistryEvent } from '../events/event-bus';

export const STREAM_PATH = '/registry/stream';
const READ_PERMISSION = 'mcp:read';
/** Owners of connections remembered; a connection's owner and team are set once, at registration. */
const MAX_REMEMBERED = 10_000;

function send(ws: WebSocket, message: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

/**
 * `/registry/stream` on the platform's SocketGateway (token and `mcp:read` checked before the
 * upgrade, sockets per caller capped, a socket closed with 4401 when its token expires and 4403
 * when it is revoked): clients subscribe to event kinds and receive them as they happen on any
 * replica (the events come from Redis pub/sub through the EventBus).
 */
export function createRegistryStream(
  verifier: TokenVerifier,
  events: EventBus,
  logger: Logger,
  options: { maxPerUser: number; ownerOf: (connectionId: string) => Promise<Owned | null> },
) {
  const subscriptions = new Map<WebSocket, { kinds: Set<string>; claims: AccessTokenClaims }>();
  // One lookup per connection, shared by the events that wait on it, so each socket keeps their order.
  const owners = new Map<string, Promise<Owned | null>>();
  const ownerOf = (connectionId: string) => {
    let owner = owners.get(connectionId);
    if (!owner) {
      if (owners.size >= MAX_REMEMBERED) owners.clear();
      owner = options.ownerOf(connectionId).catch((error: unknown) => {
        owners.delete(connectionId);
        logger.warn({ err: error, connectionId }, 'the owner of a connection could not be read: its event goes to admins only');
        return null;
      });
      owners.set(connectionId, owner);
    }
    return owner;
  };
  // Each event goes only to the sockets whose caller may read its connection (the ownership rule).
  const deliver = (event: RegistryEvent, owner: Owned | null) => {
    for (const [ws, { kinds, claims }] of subscriptions) {
      if (!kinds.has(event.type)) continue;
      if (owner ? connectionRule.canRead(claims, owner) : connectionRule.isAdmin(claims)) send(ws, event);
    }
  };
  const unsubscribe = events.on((event: RegistryEvent) => {
    void ownerOf(event.connectionId).then((owner) => deliver(event, owner));
  });

  function onConnection(ws: WebSocket, context: SocketContext): void {
    const kinds = new Set<string>();
    subscriptions.set(ws, { kinds, claims: context.claims });
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
