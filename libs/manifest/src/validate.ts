import { API_VERSION_PREFIX, SCHEMA_VERSION } from './enums';
import { fromZodIssue, type ManifestIssue } from './issues';
import { ManifestParseError, parseManifestText, type ManifestFormat } from './parse';
import { ManifestSchema, type Manifest } from './schema/manifest';
import { CHECKSUM } from './patterns';
import { SignatureSchema } from './schema/metadata';
import { checkChecksum } from './checksum';
import { checkSignature } from './signature';

export interface ManifestValidationResult {
  valid: boolean;
  errors: ManifestIssue[];
  warnings: ManifestIssue[];
  /** the schema version the manifest was checked against */
  schemaVersion: string;
  format: ManifestFormat;
  /** the document as parsed (unchanged, no defaults filled in), present whenever it parsed */
  manifest?: Manifest;
}

export interface ValidateOptions {
  /** how to read text input; detected when absent (`{` first means JSON, otherwise YAML) */
  format?: ManifestFormat;
  /**
   * A checksum or signature that does not verify is an error. Without it (the default), schema
   * validity alone decides `valid` and such a checksum or signature is a warning: spec 1 does not
   * say which bytes they cover, so other tools' checksums need not match this validator's.
   */
  strict?: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Validates a manifest given as JSON or YAML text, a Buffer of such text, or an already parsed
 * object. Checks the schema of spec 1, then `x-signature` and `identity.checksum` when present:
 * one that does not verify is a warning, or an error with `strict`.
 */
export function validateManifest(input: string | Buffer | object, options: ValidateOptions = {}): ManifestValidationResult {
  let document: unknown;
  let format: ManifestFormat = options.format ?? 'json';
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    try {
      ({ document, format } = parseManifestText(typeof input === 'string' ? input : input.toString('utf8'), options.format));
    } catch (error) {
      if (!(error instanceof ManifestParseError)) throw error;
      return result([{ path: '$', code: `manifest.parse.${error.format}`, message: error.message }], [], error.format);
    }
  } else {
    document = input;
  }

  if (!isObject(document)) {
    const found = Array.isArray(document) ? 'an array' : document === null ? 'null' : `a ${typeof document}`;
    return result([{ path: '$', code: 'manifest.type', message: `a manifest must be an object (a mapping in YAML); found ${found}` }], [], format);
  }

  const errors: ManifestIssue[] = [];
  const warnings: ManifestIssue[] = [];
  const parsed = ManifestSchema.safeParse(document);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push(...fromZodIssue(issue, document, format === 'yaml'));
  }
  warnings.push(...apiVersionWarnings(document.apiVersion), ...statusWarnings(document.metadata));
  const integrity = checkIntegrity(document);
  (options.strict ? errors : warnings).push(...integrity.unverified);
  warnings.push(...integrity.warnings);
  return result(errors, warnings, format, document as Manifest);
}

function result(errors: ManifestIssue[], warnings: ManifestIssue[], format: ManifestFormat, manifest?: Manifest): ManifestValidationResult {
  return { valid: errors.length === 0, errors, warnings, schemaVersion: SCHEMA_VERSION, format, ...(manifest ? { manifest } : {}) };
}

const CURRENT_LINE = /^std\/v0\.4(?:[.-]|$)/;
const OLDER_LINES = /^std\/v0\.[23]\./;

/** 0.4.x is the current line; older and newer versions pass the pattern but are checked as 0.4.7. */
function apiVersionWarnings(apiVersion: unknown): ManifestIssue[] {
  if (typeof apiVersion !== 'string' || CURRENT_LINE.test(apiVersion) || !apiVersion.startsWith(API_VERSION_PREFIX)) return [];
  const older = OLDER_LINES.test(apiVersion);
  return [
    {
      path: '$.apiVersion',
      code: older ? 'manifest.apiVersion.legacy' : 'manifest.apiVersion.newer',
      message: older
        ? `apiVersion ${apiVersion} is older than ${SCHEMA_VERSION} and accepted for compatibility; it was checked against schema ${SCHEMA_VERSION} — consider moving to std/v${SCHEMA_VERSION}`
        : `apiVersion ${apiVersion} is newer than ${SCHEMA_VERSION}; it was checked against schema ${SCHEMA_VERSION}, so fields new in that version are not checked`,
    },
  ];
}

function statusWarnings(metadata: unknown): ManifestIssue[] {
  if (!isObject(metadata)) return [];
  const warnings: ManifestIssue[] = [];
  const status = metadata.status ?? 'active';
  if (status === 'deprecated' && metadata.deprecated_message === undefined) {
    warnings.push({
      path: '$.metadata.deprecated_message',
      code: 'manifest.metadata.deprecated_message.missing',
      message: 'metadata.status is "deprecated" but metadata.deprecated_message is missing; tell users why and what to use instead',
    });
  }
  if (status === 'revoked' && metadata.revoked_at === undefined) {
    warnings.push({
      path: '$.metadata.revoked_at',
      code: 'manifest.metadata.revoked_at.missing',
      message: 'metadata.status is "revoked" but metadata.revoked_at is missing; record when the agent was revoked',
    });
  }
  if (status !== 'revoked' && metadata.revoked_at !== undefined) {
    warnings.push({
      path: '$.metadata.revoked_at',
      code: 'manifest.metadata.revoked_at.unexpected',
      message: `metadata.revoked_at is set but metadata.status is "${String(status)}", not "revoked"`,
    });
  }
  if (status !== 'deprecated' && metadata.deprecated_message !== undefined) {
    warnings.push({
      path: '$.metadata.deprecated_message',
      code: 'manifest.metadata.deprecated_message.unexpected',
      message: `metadata.deprecated_message is set but metadata.status is "${String(status)}", not "deprecated"`,
    });
  }
  return warnings;
}

/**
 * Signature and checksum, checked whenever their own fields are well formed (the rest may be
 * invalid). `unverified`: what did not verify, each message saying how this validator computed it.
 */
function checkIntegrity(document: Json): { unverified: ManifestIssue[]; warnings: ManifestIssue[] } {
  const errors: ManifestIssue[] = [];
  const warnings: ManifestIssue[] = [];
  const metadata = isObject(document.metadata) ? document.metadata : undefined;
  const identity = metadata && isObject(metadata.identity) ? metadata.identity : undefined;
  const checksum = identity && typeof identity.checksum === 'string' && CHECKSUM.regex.test(identity.checksum) ? identity.checksum : undefined;
  const signature = metadata?.['x-signature'] === undefined ? undefined : SignatureSchema.safeParse(metadata['x-signature']).data;
  if (checksum === undefined && signature === undefined) return { unverified: errors, warnings };
  try {
    if (checksum !== undefined) errors.push(...checkChecksum(document, checksum));
    if (signature !== undefined) {
      const checked = checkSignature(document, signature);
      errors.push(...checked.errors);
      warnings.push(...checked.warnings);
    }
  } catch (error) {
    // RFC 8785 has no form for NaN, Infinity (YAML .nan, .inf) or lone surrogates: nothing to hash or verify.
    if (!(error instanceof TypeError)) throw error;
    errors.push({
      path: '$',
      code: 'manifest.canonical_form',
      message: `the manifest cannot be put in RFC 8785 canonical form (the bytes its checksum and signature cover), so they were not verified: ${error.message}`,
    });
  }
  return { unverified: errors, warnings };
}
