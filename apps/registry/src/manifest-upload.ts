import { validateManifest, type ManifestIssue } from '@platform/manifest';
import { ApiError, badRequest, payloadTooLarge } from '@platform/http';
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { registry } from '@platform/contracts';
import semver from 'semver';

export type ManifestFormat = 'json' | 'yaml';

/** A manifest as sent to a publish endpoint: its bytes, untouched, and the media type it came with. */
export interface RawManifest {
  bytes?: Buffer;
  contentType?: string;
  /** Set when the body could not be read (too large, bad encoding). */
  error?: 'too_large' | 'unreadable';
}

/** A validated manifest, ready to be stored as a version. */
export interface AcceptedManifest {
  bytes: Buffer;
  format: ManifestFormat;
  digest: string;
  convertedBytes: Buffer;
  convertedDigest: string;
  document: Record<string, unknown>;
  schemaVersion: string;
  warnings: ManifestIssue[];
  namespace?: string;
  name: string;
  version: string;
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

const JSON_TYPES = new Set(['application/json']);
const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);
/** Media types whose format is detected from the text. */
const SNIFFED_TYPES = new Set(['text/plain', 'application/octet-stream']);
export const MANIFEST_MEDIA_TYPES = [...JSON_TYPES, ...YAML_TYPES, ...SNIFFED_TYPES];

function declaredFormat(contentType: string | undefined): ManifestFormat | undefined {
  const type = (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
  if (JSON_TYPES.has(type) || type.endsWith('+json')) return 'json';
  if (YAML_TYPES.has(type) || type.endsWith('+yaml')) return 'yaml';
  if (!type || SNIFFED_TYPES.has(type)) return undefined;
  throw new ApiError(415, 'validation_error', 'unsupported_media_type', `A manifest is sent as application/json or application/yaml, not ${type}`, {
    accepted: MANIFEST_MEDIA_TYPES,
  });
}

/** The other representation of the document: YAML for a JSON manifest, JSON for a YAML one. */
function convert(document: unknown, from: ManifestFormat): Buffer {
  return Buffer.from(from === 'json' ? YAML.stringify(document, { lineWidth: 0 }) : `${JSON.stringify(document, null, 2)}\n`, 'utf8');
}

/** Whether any key or string value holds a NUL character (Postgres jsonb cannot store one). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => key.includes('\0') || hasNul(item));
  return false;
}

const invalid = (message: string, issues: ManifestIssue[], extra: Record<string, unknown> = {}) => badRequest(message, { issues, ...extra });

export interface AcceptOptions {
  /**
   * A checksum or signature that does not verify is a 400 (`REGISTRY_REQUIRE_VERIFIED_MANIFESTS`);
   * otherwise it is stored as a warning of the version.
   */
  requireVerified?: boolean;
}

/**
 * Reads, validates and prepares a manifest for publishing. Throws 400 with the validator's
 * errors (each with its JSON path and a stable code), 413 when too large, 415 for a media type
 * that is neither JSON nor YAML.
 */
export function acceptManifest(raw: RawManifest, options: AcceptOptions = {}): AcceptedManifest {
  if (raw.error === 'too_large') throw payloadTooLarge('The manifest is too large');
  if (raw.error === 'unreadable' || !raw.bytes) throw badRequest('The request body could not be read');
  if (raw.bytes.length === 0)
    throw invalid('The request body is empty: send the manifest', [{ path: '$', message: 'a manifest is required', code: 'manifest.required' }]);
  const format = declaredFormat(raw.contentType);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw.bytes);
  } catch {
    throw invalid('The manifest is not UTF-8 text', [{ path: '$', message: 'the body must be UTF-8', code: 'manifest.encoding' }]);
  }
  const result = validateManifest(text, { format, strict: options.requireVerified ?? false });
  if (!result.valid || !result.manifest) {
    throw invalid('The manifest is invalid', result.errors, { warnings: result.warnings, schemaVersion: result.schemaVersion, format: result.format });
  }
  const document = result.manifest as unknown as Record<string, unknown>;
  if (hasNul(document)) {
    throw invalid('The manifest contains a NUL character (\\u0000), which the registry cannot store', [
      { path: '$', message: 'remove NUL characters', code: 'registry.nul_character' },
    ]);
  }
  const metadata = (document.metadata ?? {}) as Record<string, unknown>;
  const version = metadata.version;
  if (typeof version !== 'string' || !registry.SemanticVersion.safeParse(version).success || !semver.valid(version)) {
    throw invalid('Publishing needs metadata.version, a semantic version', [
      { path: '$.metadata.version', message: 'a semantic version such as 1.0.0 is required to publish', code: 'registry.metadata.version.required' },
    ]);
  }
  const convertedBytes = convert(document, result.format);
  return {
    bytes: raw.bytes,
    format: result.format,
    digest: sha256(raw.bytes),
    convertedBytes,
    convertedDigest: sha256(convertedBytes),
    document,
    schemaVersion: result.schemaVersion,
    warnings: result.warnings,
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
    name: String(metadata.name),
    version,
  };
}
