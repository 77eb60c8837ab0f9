import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One line per finished request: errors at `error`, other 4xx at `info` (expected, not failures),
 * the rest at `debug`. Nothing is built unless the level is on, which keeps the hot path cheap, and
 * the query string is left out, so a token passed in one never reaches a log.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
      if (!logger.isLevelEnabled(level) || req.path.startsWith('/health')) return;
      logger[level](
        {
          requestId: (req as typeof req & { id?: string }).id,
          method: req.method,
          path: req.originalUrl.split('?', 1)[0],
          status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
          ip: req.ip,
          userAgent: req.get('user-agent'),
        },
        'request completed',
      );
    });
    next();
  };
}
