import { notFound, serviceUnavailable } from '@platform/http';
import express, { type Response, type Router } from 'express';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** What a page of the console may load and do: only its own origin's scripts, no framing, no plugins. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Paths that are the platform's, never the console's (an unknown one stays a JSON 404). */
const RESERVED = /^\/(?:api(?:\/|$)|v1(?:\/|$)|health|metrics$|openapi\.json$|docs(?:\/|$))/;

/** `dist/apps/console` of the repository this file is in (its root holds nx.json), else of the working directory. */
export function defaultConsoleDir(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return path.join(dir, 'dist/apps/console');
    if (path.dirname(dir) === dir) return path.resolve('dist/apps/console');
  }
}

const isFile = (file: string) => existsSync(file) && statSync(file).isFile();

function pageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-cache');
}

/**
 * The built console at the gateway's origin: Vite's hashed `/assets/*` cached for a year, files of
 * its root (favicon) revalidated, and `index.html` for every other path that is not the platform's
 * (the console routes in the browser). Nothing outside the directory is ever read.
 */
export function staticConsole(directory: string): Router {
  const root = path.resolve(directory);
  const router = express.Router();
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || RESERVED.test(req.path)) return next();
    let segments: string[];
    try {
      segments = req.path.split('/').map((segment) => decodeURIComponent(segment));
    } catch {
      return next(notFound(`Nothing at ${req.path.slice(0, 200)}`));
    }
    // `..`, a hidden file (Vite's .vite/manifest.json), a backslash or NUL: never a file of the console.
    if (segments.some((segment) => segment.startsWith('.') || /[\\\0]/.test(segment))) return next(notFound(`Nothing at ${req.path.slice(0, 200)}`));
    const index = path.join(root, 'index.html');
    if (!isFile(index))
      return next(
        serviceUnavailable(
          `The console is not built: no index.html in ${root}. Build it with \`npx nx run console:build\` (\`npm run up\` does), or set GATEWAY_CONSOLE_DIR.`,
          { consoleDir: root },
        ),
      );
    const file = path.join(root, ...segments);
    if (file !== root && !file.startsWith(`${root}${path.sep}`)) return next(notFound(`Nothing at ${req.path.slice(0, 200)}`));
    if (segments[1] === 'assets') {
      if (!isFile(file)) return next(notFound(`No console asset ${req.path.slice(0, 200)}`));
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      return res.sendFile(file, { cacheControl: false, dotfiles: 'deny' }, (error) => error && next(error));
    }
    const page = segments.length === 2 && segments[1] !== '' && isFile(file) ? file : index;
    pageHeaders(res);
    res.sendFile(page, { cacheControl: false, dotfiles: 'deny' }, (error) => error && next(error));
  });
  return router;
}
