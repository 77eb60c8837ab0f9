import { mcpRegistry } from '@platform/contracts';
import { hasPermission, TokenError, type TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventBus, RegistryEvent } from '../events/event-bus';

export const STREAM_PATH = '/registry/stream';
const READ_PERMISSION = 'mcp:read';

function refuse(socket: Duplex, status: number, type: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { type, code, message }, requestId: 'websocket-upgrade' });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function tokenOf(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers.authorization;
  if (header) return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return url.searchParams.get('access_token') ?? undefined;
}

/**
 * `/registry/stream`: clients subscribe to event kinds and receive them as they happen on any
 * replica (the events come from Redis pub/sub through the EventBus).
 */
export class RegistryStream {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly subscriptions = new Map<WebSocket, Set<string>>();
  private readonly unsubscribe: () => void;
  private pingTimer?: NodeJS.Timeout;

  constructor(
    private readonly verifier: TokenVerifier,
    events: EventBus,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = events.on((event) => this.fanOut(event));
  }

  attach(server: Server): void {
    server.on('upgrade', (request, socket, head) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'stream upgrade failed');
        socket.destroy();
      });
    });
    this.pingTimer = setInterval(() => {
      for (const socket of this.wss.clients) socket.ping();
    }, 30_000);
    this.pingTimer.unref();
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (!URL.canParse(request.url ?? '/', 'http://registry')) return refuse(socket, 404, 'not_found_error', 'route_not_found', 'Unreadable path');
    const url = new URL(request.url ?? '/', 'http://registry');
    if (url.pathname !== STREAM_PATH) return refuse(socket, 404, 'not_found_error', 'route_not_found', `No WebSocket endpoint at ${url.pathname}`);
    const token = tokenOf(request, url);
    if (!token) return refuse(socket, 401, 'authentication_error', 'invalid_token', 'A bearer token (header or access_token) is required');
    let permissions: readonly string[];
    try {
      permissions = (await this.verifier.verify(token)).permissions;
    } catch (error) {
      return refuse(socket, 401, 'authentication_error', 'invalid_token', error instanceof TokenError ? error.message : 'The token is invalid');
    }
    if (!hasPermission(permissions, READ_PERMISSION))
      return refuse(socket, 403, 'authorization_error', 'insufficient_permissions', `This needs the permission ${READ_PERMISSION}`);
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    const kinds = new Set<string>();
    this.subscriptions.set(ws, kinds);
    ws.on('close', () => this.subscriptions.delete(ws));
    ws.on('error', (error) => this.logger.debug({ err: error }, 'stream socket error'));
    ws.on('message', (data) => {
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch {
        return this.send(ws, { type: 'error', error: { code: 'invalid_message', message: 'Messages must be JSON' } });
      }
      const parsed = mcpRegistry.StreamSubscribe.safeParse(message);
      if (!parsed.success) {
        return this.send(ws, {
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
      this.send(ws, { type: parsed.data.action === 'subscribe' ? 'subscribed' : 'unsubscribed', events: [...kinds] });
    });
    this.send(ws, { type: 'welcome', events: mcpRegistry.StreamEventKind.options });
  }

  private send(ws: WebSocket, message: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  }

  private fanOut(event: RegistryEvent): void {
    for (const [ws, kinds] of this.subscriptions) if (kinds.has(event.type)) this.send(ws, event);
  }

  get clients(): number {
    return this.subscriptions.size;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    if (this.pingTimer) clearInterval(this.pingTimer);
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
