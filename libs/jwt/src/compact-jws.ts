import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { TokenError } from './token-error';

export interface DecodedJws {
  header: { alg?: unknown; kid?: unknown; typ?: unknown };
  payload: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

function parseSegment(segment: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new TokenError('token_malformed', `The token ${what} is not a JSON object`);
}

/**
 * Every token a key signs carries the same header segment, so parsed headers are kept (a few, in
 * a bounded map): decoding it again is a fifth of the verification overhead.
 */
const headers = new Map<string, DecodedJws['header']>();
const MAX_CACHED_HEADERS = 64;

function parsedHeader(segment: string): DecodedJws['header'] {
  let header = headers.get(segment);
  if (!header) {
    header = Object.freeze(parseSegment(segment, 'header'));
    if (headers.size >= MAX_CACHED_HEADERS) headers.clear();
    headers.set(segment, header);
  }
  return header;
}

/** Splits a compact JWS without trusting anything in it yet. */
export function decodeCompactJws(token: string): DecodedJws {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '') {
    throw new TokenError('token_malformed', 'The token is not a compact JWS');
  }
  const [header, payload, signature] = parts as [string, string, string];
  // Header and payload bytes are covered by the signature; the signature segment is not, and
  // Node's decoder skips stray characters, so it must re-encode to itself (no malleable tokens).
  const signatureBytes = Buffer.from(signature, 'base64url');
  if (signatureBytes.toString('base64url') !== signature) {
    throw new TokenError('token_malformed', 'The token signature is not base64url');
  }
  return {
    header: parsedHeader(header),
    payload: parseSegment(payload, 'payload'),
    signingInput: Buffer.from(`${header}.${payload}`),
    signature: signatureBytes,
  };
}

/** RS256 only: the algorithm comes from our policy, never from the token header. */
export function verifyRs256(decoded: DecodedJws, key: KeyObject): boolean {
  return verify('RSA-SHA256', decoded.signingInput, key, decoded.signature);
}

export function publicKeyFromJwk(jwk: { kty: string; n: string; e: string }): KeyObject {
  return createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' });
}
