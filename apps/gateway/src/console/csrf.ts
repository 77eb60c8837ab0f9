import { forbidden } from '@platform/http';
import type { RequestHandler } from 'express';

export const CONSOLE_HEADER = 'x-platform-console';

/** The gateway's origin; on a loopback address both names of it (a local boot opened as localhost). */
function ownOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return [url.origin];
  return ['127.0.0.1', 'localhost'].map((host) => `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`);
}

/**
 * The console's state-changing calls ride on a cookie, so they must prove they come from the
 * console's own pages: a custom header (no cross-site form or simple request can send one) and,
 * when the browser names it, an Origin that is the gateway's own (or one allowed by config).
 */
export function requireConsoleOrigin(options: { publicUrl: string; allowedOrigins: readonly string[] }): RequestHandler {
  const allowed = new Set([...ownOrigins(options.publicUrl), ...options.allowedOrigins.map((origin) => new URL(origin).origin)]);
  return (req, _res, next) => {
    if (req.get(CONSOLE_HEADER) !== '1')
      return next(forbidden(`Console calls need the header X-Platform-Console: 1`, { reason: 'missing_console_header' }, 'csrf_rejected'));
    const origin = req.get('origin');
    if (origin !== undefined && !allowed.has(origin))
      return next(forbidden('The request comes from another origin', { reason: 'foreign_origin', origin: origin.slice(0, 256) }, 'csrf_rejected'));
    next();
  };
}
