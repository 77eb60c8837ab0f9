import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { ManifestIssue } from './issues';

// What is signed and hashed (README, "Signing: the exact bytes"):
// - x-signature.value signs canonicalJson(manifest without metadata["x-signature"]).
// - identity.checksum hashes canonicalJson(manifest without metadata["x-signature"] and without
//   metadata.identity.checksum).
// So a publisher sets the checksum first and signs last; the signature covers the checksum.

export type ChecksumAlgorithm = 'sha256' | 'sha512';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
/** The manifest without `metadata["x-signature"]`: the bytes a signature covers, before canonicalization. */
export function withoutSignature(manifest: unknown): unknown {
  if (!isObject(manifest) || !isObject(manifest.metadata) || !('x-signature' in manifest.metadata)) return manifest;
  const { 'x-signature': _signature, ...metadata } = manifest.metadata;
  return { ...manifest, metadata };
}

/** The manifest without the signature and without `metadata.identity.checksum`: what the checksum hashes. */
export function withoutSignatureAndChecksum(manifest: unknown): unknown {
  const unsigned = withoutSignature(manifest);
  if (!isObject(unsigned) || !isObject(unsigned.metadata) || !isObject(unsigned.metadata.identity)) return unsigned;
  const { checksum: _checksum, ...identity } = unsigned.metadata.identity;
  return { ...unsigned, metadata: { ...unsigned.metadata, identity } };
}

/** The bytes `x-signature.value` signs. */
export function signedBytes(manifest: unknown): Buffer {
  return Buffer.from(canonicalJson(withoutSignature(manifest)), 'utf8');
}

/** `sha256:<hex>` or `sha512:<hex>` of the manifest, for `metadata.identity.checksum`. */
export function manifestChecksum(manifest: unknown, algorithm: ChecksumAlgorithm = 'sha256'): string {
  const digest = createHash(algorithm)
    .update(canonicalJson(withoutSignatureAndChecksum(manifest)), 'utf8')
    .digest('hex');
  return `${algorithm}:${digest}`;
}

const CHECKSUM_PATH = '$.metadata.identity.checksum';

/** Compares `metadata.identity.checksum` with the manifest's own digest. */
export function checkChecksum(manifest: Json, checksum: string): ManifestIssue[] {
  const [algorithm] = checksum.split(':') as [ChecksumAlgorithm];
  const actual = manifestChecksum(manifest, algorithm);
  if (actual === checksum) return [];
  return [
    {
      path: CHECKSUM_PATH,
      code: 'manifest.metadata.identity.checksum.mismatch',
      message:
        `metadata.identity.checksum does not match the manifest: computed ${actual}, found ${checksum}. ` +
        `Computed as ${algorithm} over the UTF-8 of the RFC 8785 canonical JSON of the manifest without metadata["x-signature"] and ` +
        'without metadata.identity.checksum (libs/manifest/README.md, "Checksum"); a tool that hashes other bytes gives another digest',
    },
  ];
}
