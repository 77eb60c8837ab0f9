import { ApiError, toApiError, tooManyRequests, type RateLimiter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import http, { type IncomingMessage, type Server } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { apiKeyHash, invalidApiKey, type ApiKeyExchange } from '../access/api-keys';
import { API_KEY_SHAPE, JWT_SHAPE } from '../access/gateway-access';
import { upstreamRequestHeaders } from './forwarded-headers';
import { dependencyUnavailable, platformTarget, type PlatformTargets } from './platform.targets';

export interface PlatformSocketsOptions {
  prefix: string;
  targets: PlatformTargets;
  /** For the handshake only: an open socket lasts as long as either side keeps it. */
  timeoutMs: number;
  exchange: ApiKeyExchange;
  verifier: TokenVerifier;
  limiter: RateLimiter;
  logger: Logger;
}

/** A browser cannot set headers on a WebSocket: it may offer `bearer.<token>` as a subprotocol instead. */
const PROTOCOL_TOKEN = /^bearer\.(\S+)$/i;

/** The largest refusal of an upgrade relayed from a service. */
const REFUSAL_LIMIT = 64 * 1024;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function refuse(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify({
    error: { type: error.type, code: error.code, message: error.message, details: error.details },
    requestId: 'websocket-upgrade',
  });
  const extra = Object.entries(error.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra.join('')}Connection: close\r\n\r\n${body}`,
  );
}

/** The status line and headers of an answer, written to a raw socket as received. */
function head(incoming: IncomingMessage, replace: Record<string, string | undefined> = {}): string {
  const lines = [`HTTP/1.1 ${incoming.statusCode} ${incoming.statusMessage}`];
  const replaced = new Set(Object.keys(replace).map((name) => name.toLowerCase()));
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
    if (!replaced.has(incoming.rawHeaders[i].toLowerCase())) lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
  }
  for (const [name, value] of Object.entries(replace)) if (value !== undefined) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

interface Credentials {
  /** A platform token, or an API key still to exchange. */
  token?: string;
  apiKey?: string;
  /** Subprotocols offered besides the token, passed on to the service. */
  protocols: string[];
  tokenProtocol?: string;
}

/** The caller's credentials on an upgrade: header, X-API-Key, `access_token`, or a `bearer.<token>` subprotocol. */
function credentials(req: IncomingMessage, url: URL): Credentials {
  const offered = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter(Boolean);
  const tokenProtocol = offered.find((protocol) => PROTOCOL_TOKEN.test(protocol));
  const protocols = offered.filter((protocol) => protocol !== tokenProtocol);
  const headerKey = req.headers['x-api-key'];
  if (typeof headerKey === 'string') return { apiKey: headerKey, protocols, tokenProtocol };
  const bearer =
    /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ??
    url.searchParams.get('access_token') ??
    (tokenProtocol ? PROTOCOL_TOKEN.exec(tokenProtocol)![1] : undefined);
  if (bearer && !JWT_SHAPE.test(bearer)) return { apiKey: bearer, protocols, tokenProtocol };
  return { token: bearer, protocols, tokenProtocol };
}

/**
 * WebSocket upgrades under the pass-through prefix, relayed to the service (the workflow engine's
 * execution streams, the MCP registry's event stream): the same rate limit and API-key exchange as
 * every gateway request, the token handed to the service as the `Authorization` header whichever
 * way the browser sent it, then the bytes copied both ways until either side closes.
 */
export class PlatformSockets {
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly options: PlatformSocketsOptions) {}

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, firstBytes: Buffer) => {
      const path = (req.url ?? '/').split('?')[0];
      if (!path.startsWith(this.options.prefix)) {
        // Another upgrade handler may own it; when none does, say so rather than leave it hanging.
        if (server.listenerCount('upgrade') === 1) refuse(socket, new ApiError(404, 'not_found_error', 'route_not_found', `No WebSocket endpoint at ${path}`));
        return;
      }
      this.relay(req, socket, firstBytes).catch((error: unknown) => {
        const answer = toApiError(error);
        if (answer.status >= 500) this.options.logger.warn({ err: error }, 'websocket pass-through failed');
        if (socket.writable) refuse(socket, answer);
        else socket.destroy();
      });
    });
  }

  /** Closes every relayed socket (shutdown). */
  close(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private async relay(req: IncomingMessage, socket: Duplex, firstBytes: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const { service, url } = platformTarget(this.options.prefix, req.url ?? '/', this.options.targets);
    const given = credentials(req, url);
    // The token travels as a header from here on, not in a URL that logs keep.
    url.searchParams.delete('access_token');
    let bucket = `ip:${req.socket.remoteAddress}`;
    if (given.apiKey !== undefined) bucket = `key:${apiKeyHash(given.apiKey)}`;
    else if (given.token) {
      const claims = await this.options.verifier.verify(given.token).catch(() => undefined);
      if (claims) bucket = `user:${claims.sub}`;
    }
    const state = await this.options.limiter.take(bucket);
    if (!state.allowed) throw tooManyRequests('Too many requests; try again later', state.retryAfter);
    let token = given.token;
    if (given.apiKey !== undefined) {
      if (!API_KEY_SHAPE.test(given.apiKey)) throw invalidApiKey();
      token = await this.options.exchange.token(given.apiKey, bucket.slice(4));
    }

    const headers = upstreamRequestHeaders(req);
    delete headers.authorization;
    if (token) headers.authorization = `Bearer ${token}`;
    for (const name of ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions'] as const) {
      if (req.headers[name]) headers[name] = req.headers[name];
    }
    if (given.protocols.length) headers['sec-websocket-protocol'] = given.protocols.join(', ');
    headers.connection = 'Upgrade';
    headers.upgrade = 'websocket';

    await new Promise<void>((resolve, reject) => {
      const upstream = (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', headers });
      const timer = setTimeout(() => (upstream.destroy(), reject(dependencyUnavailable(service, 'timeout'))), this.options.timeoutMs);
      upstream.on('error', (error: NodeJS.ErrnoException) => (clearTimeout(timer), reject(dependencyUnavailable(service, error.code ?? 'network'))));
      // The service refused the upgrade (401, 403, 404, ...): its answer goes to the caller as it is,
      // read whole (a refusal is small) so that it is sent with its length, not in chunks.
      upstream.on('response', (incoming) => {
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= REFUSAL_LIMIT) chunks.push(chunk);
          else incoming.destroy();
        });
        incoming.on('error', () => reject(dependencyUnavailable(service, 'invalid_response')));
        incoming.on('end', () => {
          const body = Buffer.concat(chunks);
          socket.end(
            Buffer.concat([Buffer.from(head(incoming, { Connection: 'close', 'Transfer-Encoding': undefined, 'Content-Length': String(body.length) })), body]),
          );
          resolve();
        });
        // Cut off (too long, or the service went away): the caller is not left waiting.
        incoming.on('close', () => {
          if (!incoming.complete) socket.destroy();
          resolve();
        });
      });
      upstream.on('upgrade', (incoming, serviceSocket, serviceBytes) => {
        clearTimeout(timer);
        // A browser that offered only the token protocol fails a handshake that selects none.
        const selected = incoming.headers['sec-websocket-protocol'] ?? given.tokenProtocol;
        socket.write(head(incoming, { 'Sec-WebSocket-Protocol': selected }));
        if (serviceBytes.length) socket.write(serviceBytes);
        if (firstBytes.length) serviceSocket.write(firstBytes);
        this.sockets.add(socket);
        const end = () => {
          this.sockets.delete(socket);
          socket.destroy();
          serviceSocket.destroy();
        };
        serviceSocket.on('error', end).on('close', end);
        socket.on('error', end).on('close', end);
        serviceSocket.pipe(socket);
        socket.pipe(serviceSocket);
        resolve();
      });
      upstream.end();
    });
  }
}
