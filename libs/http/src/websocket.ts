import type { AccessTokenClaims } from '@platform/contracts';
import { hasPermission, TokenError, type TokenVerifier } from '@platform/jwt';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';

/** Close codes a client can act on (4000-4999 are the application's). */
export const SocketCloseCode = {
  tokenExpired: 4401,
  tokenRevoked: 4403,
  shuttingDown: 1001,
} as const;

export interface SocketContext {
  claims: AccessTokenClaims;
  /** Values of the path's `:name` segments. */
  params: Record<string, string>;
  url: URL;
}

export interface SocketEndpoint {
  /** Express-style path: `/api/v1/executions/:id/stream`. */
  path: string;
  permission: string;
  /** May refuse the connection (404 for an unknown resource) by throwing an ApiError-like error. */
  authorize?: (context: SocketContext) => Promise<void> | void;
  onConnection: (ws: WebSocket, context: SocketContext) => void;
}

export interface SocketGatewayOptions {
  /** Open sockets one caller (token `sub`) may hold across this process. */
  maxPerUser?: number;
  maxPayloadBytes?: number;
  /** How often open sockets are checked against revocations. */
  revocationCheckMs?: number;
}

interface Open {
  claims: AccessTokenClaims;
  expiry: NodeJS.Timeout;
}

function refuse(socket: Duplex, status: number, type: string, code: string, message: string): void {
  const reasons: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests' };
  const body = JSON.stringify({ error: { type, code, message }, requestId: 'websocket-upgrade' });
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_match, name: string) => (names.push(name), '([^/]+)'));
  return { pattern: new RegExp(`^${source}$`), names };
}

/**
 * The WebSocket endpoints of a service, behind the same rules as its HTTP API: a bearer token
 * (header, or `access_token` on the upgrade only) verified and its permission checked before the
 * upgrade, at most `maxPerUser` sockets per caller, and every socket closed when its token expires
 * (4401) or is revoked (4403), so a stream never outlives the right to read it.
 */
export class SocketGateway {
  private readonly wss: WebSocketServer;
  private readonly endpoints: Array<SocketEndpoint & { pattern: RegExp; names: string[] }> = [];
  private readonly open = new Map<WebSocket, Open>();
  private readonly perUser = new Map<string, number>();
  private readonly maxPerUser: number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly pinger: NodeJS.Timeout;

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly logger: Logger,
    options: SocketGatewayOptions = {},
  ) {
    this.maxPerUser = options.maxPerUser ?? 20;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 64 * 1024 });
    this.sweeper = setInterval(() => this.closeRevoked(), options.revocationCheckMs ?? 1000);
    this.sweeper.unref();
    this.pinger = setInterval(() => this.wss.clients.forEach((ws) => ws.ping()), 30_000);
    this.pinger.unref();
  }

  endpoint(endpoint: SocketEndpoint): this {
    this.endpoints.push({ ...endpoint, ...compile(endpoint.path) });
    return this;
  }

  attach(server: Server): void {
    server.on('upgrade', (request, socket, head) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'websocket upgrade failed');
        socket.destroy();
      });
    });
  }

  /** Sockets open now, per endpoint path. */
  get size(): number {
    return this.open.size;
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (!URL.canParse(request.url ?? '/', 'http://service')) return refuse(socket, 400, 'validation_error', 'invalid_request', 'Unreadable path');
    const url = new URL(request.url ?? '/', 'http://service');
    const endpoint = this.endpoints.find((candidate) => candidate.pattern.test(url.pathname));
    if (!endpoint) return refuse(socket, 404, 'not_found_error', 'route_not_found', `No WebSocket endpoint at ${url.pathname}`);
    const header = request.headers.authorization;
    const token = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : (url.searchParams.get('access_token') ?? undefined);
    if (!token) return refuse(socket, 401, 'authentication_error', 'invalid_token', 'A bearer token (header or access_token) is required');
    let claims: AccessTokenClaims;
    try {
      claims = await this.verifier.verify(token);
    } catch (error) {
      return refuse(socket, 401, 'authentication_error', 'invalid_token', error instanceof TokenError ? error.message : 'The token is invalid');
    }
    if (!hasPermission(claims.permissions, endpoint.permission))
      return refuse(socket, 403, 'authorization_error', 'insufficient_permissions', `This needs the permission ${endpoint.permission}`);
    if ((this.perUser.get(claims.sub) ?? 0) >= this.maxPerUser)
      return refuse(socket, 429, 'rate_limit_error', 'rate_limited', `At most ${this.maxPerUser} open streams per caller`);
    const match = endpoint.pattern.exec(url.pathname) as RegExpExecArray;
    const params = Object.fromEntries(endpoint.names.map((name, index) => [name, decodeURIComponent(match[index + 1])]));
    const context: SocketContext = { claims, params, url };
    try {
      await endpoint.authorize?.(context);
    } catch (error) {
      const status = Number((error as { status?: number }).status) || 500;
      const known = error as { type?: string; code?: string; message?: string };
      return refuse(
        socket,
        status,
        known.type ?? 'api_error',
        known.code ?? 'internal_error',
        status < 500 ? (known.message ?? 'Refused') : 'An internal error occurred',
      );
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, endpoint, context));
  }

  private accept(ws: WebSocket, endpoint: SocketEndpoint, context: SocketContext): void {
    const { sub, exp } = context.claims;
    this.perUser.set(sub, (this.perUser.get(sub) ?? 0) + 1);
    const expiry = setTimeout(() => ws.close(SocketCloseCode.tokenExpired, 'token expired'), Math.max(0, exp * 1000 - Date.now()));
    expiry.unref();
    this.open.set(ws, { claims: context.claims, expiry });
    ws.on('close', () => {
      clearTimeout(expiry);
      this.open.delete(ws);
      const left = (this.perUser.get(sub) ?? 1) - 1;
      if (left > 0) this.perUser.set(sub, left);
      else this.perUser.delete(sub);
    });
    ws.on('error', (error) => this.logger.debug({ err: error }, 'websocket error'));
    endpoint.onConnection(ws, context);
  }

  private closeRevoked(): void {
    for (const [ws, { claims }] of this.open) if (this.verifier.isRevoked(claims)) ws.close(SocketCloseCode.tokenRevoked, 'token revoked');
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.pinger);
    for (const ws of this.wss.clients) ws.close(SocketCloseCode.shuttingDown, 'shutting down');
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const ws of this.wss.clients) ws.terminate();
  }
}
