import { constants, createPrivateKey, createPublicKey, sign, verify, type KeyLike, type KeyObject } from 'node:crypto';
import { isObject, signedBytes } from './checksum';
import { VERIFIABLE_SIGNATURE_TYPES } from './enums';
import type { ManifestIssue } from './issues';

// Signing and verifying metadata["x-signature"] over signedBytes() (see checksum.ts).

export type VerifiableSignatureType = (typeof VERIFIABLE_SIGNATURE_TYPES)[number];

type Json = Record<string, unknown>;

// RSA-PSS parameters: SHA-256, MGF1 with SHA-256, salt as long as the digest (verification accepts any salt length).
const PSS_SIGN = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
const PSS_VERIFY = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO };

/** ECDSA hashes with the digest that matches the curve (P-256: SHA-256, P-384: SHA-384, P-521: SHA-512). */
function ecdsaDigest(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === 'secp384r1') return 'sha384';
  if (curve === 'secp521r1') return 'sha512';
  return 'sha256';
}

const KEY_TYPES: Record<VerifiableSignatureType, readonly string[]> = {
  Ed25519: ['ed25519'],
  'RSA-PSS': ['rsa', 'rsa-pss'],
  ECDSA: ['ec'],
};

export interface SignedManifest {
  metadata: { 'x-signature': { type: VerifiableSignatureType; value: string; publicKey: string; timestamp?: string } } & Json;
}

/**
 * Signs a manifest and returns a copy with `metadata["x-signature"]` set (value: base64; ECDSA
 * signatures DER-encoded; publicKey: base64 DER SubjectPublicKeyInfo). Set identity.checksum first.
 */
export function signManifest<T extends object>(
  manifest: T,
  privateKey: KeyLike,
  type: VerifiableSignatureType,
  options: { timestamp?: string; issuer?: string } = {},
): T & SignedManifest {
  const key = typeof privateKey === 'string' || Buffer.isBuffer(privateKey) ? createPrivateKey(privateKey) : (privateKey as KeyObject);
  const bytes = signedBytes(manifest);
  const value =
    type === 'Ed25519' ? sign(null, bytes, key) : type === 'RSA-PSS' ? sign('sha256', bytes, { key, ...PSS_SIGN }) : sign(ecdsaDigest(key), bytes, key);
  const publicKey = createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64');
  const source = manifest as unknown as Json;
  const metadata = isObject(source.metadata) ? source.metadata : {};
  const signature = { type, value: value.toString('base64'), publicKey, ...options };
  return { ...source, metadata: { ...metadata, 'x-signature': signature } } as unknown as T & SignedManifest;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/** Parsed public keys by their text; manifests from one publisher share a key. */
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 256;

function importPublicKey(text: string): KeyObject {
  const cached = keyCache.get(text);
  if (cached) return cached;
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPublicKey(trimmed)
    : createPublicKey({ key: Buffer.from(base64Only(trimmed.replace(/\s+/g, '')), 'base64'), format: 'der', type: 'spki' });
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(text, key);
  return key;
}

function base64Only(text: string): string {
  if (!BASE64.test(text)) throw new Error('not base64');
  return text;
}

const SIGNATURE_PATH = '$.metadata["x-signature"]';

/** Verifies `metadata["x-signature"]`; returns the errors (bad signature, unreadable key) and warnings (unsupported type). */
export function checkSignature(
  manifest: Json,
  signature: { type: string; value: string; publicKey: string },
): {
  errors: ManifestIssue[];
  warnings: ManifestIssue[];
} {
  const errors: ManifestIssue[] = [];
  const warnings: ManifestIssue[] = [];
  const { type } = signature;
  if (!(VERIFIABLE_SIGNATURE_TYPES as readonly string[]).includes(type)) {
    warnings.push({
      path: `${SIGNATURE_PATH}.type`,
      code: 'manifest.metadata.x-signature.type.unsupported',
      message: `signatures of type "${type}" are not verified; use Ed25519, RSA-PSS or ECDSA for a signature this validator checks`,
    });
    return { errors, warnings };
  }
  const verifiable = type as VerifiableSignatureType;
  let key: KeyObject;
  try {
    key = importPublicKey(signature.publicKey);
  } catch (error) {
    errors.push({
      path: `${SIGNATURE_PATH}.publicKey`,
      code: 'manifest.metadata.x-signature.publicKey.invalid',
      message: `metadata["x-signature"].publicKey must be a PEM public key or base64 DER SubjectPublicKeyInfo; it could not be read (${(error as Error).message})`,
    });
    return { errors, warnings };
  }
  if (!KEY_TYPES[verifiable].includes(key.asymmetricKeyType ?? '')) {
    errors.push({
      path: `${SIGNATURE_PATH}.publicKey`,
      code: 'manifest.metadata.x-signature.publicKey.type',
      message: `an x-signature of type ${type} needs a public key of type ${KEY_TYPES[verifiable].join(' or ')}; found a key of type ${key.asymmetricKeyType ?? 'unknown'}`,
    });
    return { errors, warnings };
  }
  const value = signature.value.replace(/\s+/g, '');
  if (!BASE64.test(value) || value.length === 0) {
    errors.push({
      path: `${SIGNATURE_PATH}.value`,
      code: 'manifest.metadata.x-signature.value.base64',
      message: 'metadata["x-signature"].value must be the signature in base64',
    });
    return { errors, warnings };
  }
  if (!verifySignature(verifiable, signedBytes(manifest), key, Buffer.from(value, 'base64'))) {
    errors.push({
      path: `${SIGNATURE_PATH}.value`,
      code: 'manifest.metadata.x-signature.value.mismatch',
      message:
        `the ${type} signature does not match the manifest: the manifest changed after signing, it was signed with another key than publicKey, ` +
        `or it signs other bytes than this validator checks (the UTF-8 of the RFC 8785 canonical JSON of the manifest without metadata["x-signature"]; ` +
        'libs/manifest/README.md, "Signature")',
    });
  }
  return { errors, warnings };
}

function verifySignature(type: VerifiableSignatureType, bytes: Buffer, key: KeyObject, value: Buffer): boolean {
  try {
    if (type === 'Ed25519') return verify(null, bytes, key, value);
    if (type === 'RSA-PSS') return verify('sha256', bytes, { key, ...PSS_VERIFY }, value);
    // ECDSA: DER as node and OpenSSL write it, or IEEE P1363 (r || s) as JOSE and WebCrypto write it.
    const digest = ecdsaDigest(key);
    return (
      verifyQuietly(() => verify(digest, bytes, { key, dsaEncoding: 'der' }, value)) ||
      verifyQuietly(() => verify(digest, bytes, { key, dsaEncoding: 'ieee-p1363' }, value))
    );
  } catch {
    return false;
  }
}

function verifyQuietly(attempt: () => boolean): boolean {
  try {
    return attempt();
  } catch {
    return false;
  }
}
