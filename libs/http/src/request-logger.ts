import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** Logs one finished request (see requestLogger); `durationMs` since it arrived. */
export type RequestLogLine = (req: Request, res: Response, durationMs: number) => void;

/**
 * One line per finished request: errors at `error`, other 4xx at `info` (expected, not failures),
 * the rest at `debug`. Nothing is built unless the level is on, which keeps the hot path cheap, and
 * the query string is left out, so a token passed in one never reaches a log.
 */
export function requestLogLine(logger: Logger): RequestLogLine {
  return (req, res, durationMs) => {
    const status = res.statusCode;
    const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    if (!logger.isLevelEnabled(level) || req.path.startsWith('/health')) return;
    logger[level](
      {
        requestId: (req as typeof req & { id?: string }).id,
        method: req.method,
        path: req.originalUrl.split('?', 1)[0],
        status,
        durationMs: Math.round(durationMs * 100) / 100,
        ip: req.ip,
        userAgent: req.get('user-agent'),
      },
      'request completed',
    );
  };
}

/** Middleware form of requestLogLine (createServiceApp shares one 'finish' listener with metrics). */
export function requestLogger(logger: Logger): RequestHandler {
  const log = requestLogLine(logger);
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => log(req, res, performance.now() - started));
    next();
  };
}
