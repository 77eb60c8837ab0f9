import { ApiError } from '@platform/http';
import type { Request, Response } from 'express';

export type ManifestFormat = 'json' | 'yaml';

export const MEDIA_TYPE: Record<ManifestFormat, string> = { json: 'application/json', yaml: 'application/yaml' };
const ACCEPTABLE: Record<ManifestFormat, string[]> = {
  json: ['application/json'],
  yaml: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'],
};

/**
 * The format the client asks for with `Accept`. With no preference (no header, `*\/*`) the
 * stored format wins, so a plain fetch gets the manifest as published. 406 when neither JSON nor
 * YAML is acceptable.
 */
export function negotiateFormat(req: Request, stored: ManifestFormat): ManifestFormat {
  const other: ManifestFormat = stored === 'json' ? 'yaml' : 'json';
  const offered = [...ACCEPTABLE[stored], ...ACCEPTABLE[other]];
  const chosen = req.accepts(offered);
  if (!chosen) {
    throw new ApiError(406, 'validation_error', 'not_acceptable', 'A manifest is served as application/json or application/yaml', {
      available: [MEDIA_TYPE.json, MEDIA_TYPE.yaml],
    });
  }
  return ACCEPTABLE.json.includes(chosen) ? 'json' : 'yaml';
}

/** Whether `If-None-Match` names this ETag (weak comparison, as RFC 9110 asks for this header). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === etag);
}

export interface ManifestRepresentation {
  stored: ManifestFormat;
  manifestBytes: Uint8Array;
  digest: string;
  convertedBytes: Uint8Array;
  convertedDigest: string;
  /** Whether the URL named `latest` (then revalidate every time) or an immutable version. */
  mutable: boolean;
}

/**
 * Sends the manifest: the bytes as published when the stored format is asked for, else the
 * other format converted once at publish time (`X-Manifest-Converted: true`). Each
 * representation has its own strong ETag (its sha256); `If-None-Match` answers 304. Returns
 * whether a body was sent (a download).
 */
export function sendManifest(req: Request, res: Response, manifest: ManifestRepresentation): boolean {
  const format = negotiateFormat(req, manifest.stored);
  const original = format === manifest.stored;
  const etag = `"${original ? manifest.digest : manifest.convertedDigest}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Vary', 'Accept');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', manifest.mutable ? 'private, no-cache' : 'private, max-age=31536000, immutable');
  res.setHeader('X-Manifest-Format', format);
  res.setHeader('X-Manifest-Converted', String(!original));
  if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return false;
  }
  res
    .status(200)
    .type(`${MEDIA_TYPE[format]}; charset=utf-8`)
    .send(Buffer.from(original ? manifest.manifestBytes : manifest.convertedBytes));
  return true;
}
