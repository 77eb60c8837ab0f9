import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url, with a prefix that says what the token is. */
export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** High-entropy secrets need no slow hash: SHA-256 at rest is enough to make a leak useless. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function equalHashes(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** base64url(SHA-256(verifier)): the PKCE S256 challenge (RFC 7636). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
