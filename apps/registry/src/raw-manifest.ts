import type { NextFunction, Request, Response } from 'express';
import type { RawManifest } from './manifest-upload';

declare module 'express-serve-static-core' {
  interface Request {
    /** The publish endpoints' body, byte for byte (set by captureRawManifest). */
    rawManifest?: RawManifest;
  }
}

/** Paths whose POST body is a manifest: `/api/v1/agents` and `/api/v1/agents/{ns}/{name}/versions`. */
const PUBLISH_PATH = /^\/api\/v1\/agents(\/[^/]+\/[^/]+\/versions)?\/?$/;

/**
 * Runs before the shared JSON body parser and keeps a publish request's body as the exact bytes
 * sent, whatever its media type, so the manifest can be stored and served byte for byte. Once the
 * stream has ended the JSON parser leaves it alone; the route sees `{}` as its
 * parsed body and reads `req.rawManifest`. Problems (too large, aborted) are recorded for the
 * route to answer in the error shape.
 */
export function captureRawManifest(maxBytes: number) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || !PUBLISH_PATH.test(req.path)) return next();
    const contentType = req.headers['content-type'];
    const chunks: Buffer[] = [];
    let size = Number(req.headers['content-length']) || 0;
    let tooLarge = size > maxBytes;
    let done = false;
    const finish = (raw: RawManifest) => {
      if (done) return;
      done = true;
      req.rawManifest = raw;
      req.body = {};
      next();
    };
    if (!tooLarge) size = 0;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.on('end', () => finish(tooLarge ? { contentType, error: 'too_large' } : { contentType, bytes: Buffer.concat(chunks) }));
    req.on('error', () => finish({ contentType, error: 'unreadable' }));
  };
}
