import { payloadTooLarge } from '@platform/http';
import type { RequestHandler } from 'express';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './forwarded-headers';
import { dependencyUnavailable, platformTarget, type PlatformTargets } from './platform.targets';

export interface PlatformProxyOptions {
  /** `/api/v1/platform/`. */
  prefix: string;
  targets: PlatformTargets;
  timeoutMs: number;
  bodyLimit: number;
}

const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }) };

/** Server-sent events and NDJSON (Ollama's streamed chat) last as long as they last: no deadline once the service answered. */
const isStream = (upstream: IncomingMessage) =>
  /^(text\/event-stream|application\/(x-)?ndjson|application\/jsonl|application\/stream\+json)\b/i.test(upstream.headers['content-type'] ?? '');

/**
 * The console's pass-through to the platform's services (before the JSON parser, so bodies stream):
 * method, path, query, body and the caller's token go to the service, which checks its own
 * permissions; its status, headers (hop-by-hop ones dropped) and body come back unbuffered. The
 * front door has already charged the rate limit and exchanged an API key for a token.
 */
export function platformProxy(options: PlatformProxyOptions): RequestHandler {
  return (req, res, next) => {
    if (!req.path.startsWith(options.prefix)) return next();
    let target;
    try {
      target = platformTarget(options.prefix, req.originalUrl, options.targets);
    } catch (error) {
      return next(error);
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > options.bodyLimit) return next(payloadTooLarge(`The request body is larger than ${options.bodyLimit} bytes`));

    const { service, url } = target;
    let answered = false;
    const fail = (error: Error) => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      upstream.destroy();
      if (!res.headersSent) next(error);
      else res.destroy();
    };
    let deadline = setTimeout(() => fail(dependencyUnavailable(service, 'timeout')), options.timeoutMs);
    const upstream = (url.protocol === 'https:' ? https : http).request(url, {
      method: req.method,
      headers: upstreamRequestHeaders(req),
      agent: agents[url.protocol as 'http:' | 'https:'],
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!res.headersSent) fail(dependencyUnavailable(service, error.code ?? 'network'));
      else fail(error);
    });
    upstream.on('response', (incoming) => {
      if (answered) return incoming.destroy();
      clearTimeout(deadline);
      // Any other answer may take as long as it keeps sending: the deadline then bounds a silence.
      if (!isStream(incoming)) {
        const silence = () => fail(new Error(`${service} stopped sending its answer`));
        deadline = setTimeout(silence, options.timeoutMs);
        incoming.on('data', () => deadline.refresh());
        // A caller reading slowly holds the service back: that is no silence of the service's.
        res.on('drain', () => deadline.refresh());
      }
      res.writeHead(
        incoming.statusCode ?? 502,
        downstreamResponseHeaders(incoming, (name) => res.hasHeader(name)),
      );
      // Each chunk is written as it comes: a chat's events reach the browser one by one.
      res.flushHeaders();
      incoming.pipe(res);
      incoming.on('end', () => {
        answered = true;
        clearTimeout(deadline);
      });
      incoming.on('error', () => fail(new Error('upstream response aborted')));
    });
    // The caller went away: so does the call to the service.
    res.on('close', () => {
      clearTimeout(deadline);
      if (!res.writableFinished) upstream.destroy();
    });

    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.bodyLimit) {
        req.unpipe(upstream);
        fail(payloadTooLarge(`The request body is larger than ${options.bodyLimit} bytes`));
      }
    });
    req.pipe(upstream);
  };
}
