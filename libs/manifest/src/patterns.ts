// Named patterns of spec 1. Each carries the rule name used in issue codes and a phrase that
// tells a person what was expected, so an error can say more than "does not match /.../".

export interface NamedPattern {
  readonly regex: RegExp;
  /** last segment of the issue code, e.g. `pattern` in `manifest.metadata.name.pattern` */
  readonly rule: string;
  readonly expected: string;
}

const N = '(?:0|[1-9][0-9]*)';

/**
 * spec 1: prefix `std/v`, then `0.5`, `0.4`, `0.3` (patch 4 or higher), `0.2.2`..`0.2.9`
 * (optional `-dev`) or `1`; optionally a further `.N` segment and a `-<suffix>` of letters,
 * digits, dots and hyphens. `0.5` and `0.4` may carry their own patch (`0.4.7`) before the
 * further segment (`0.4.7.0`), as in the ancestor schema. Unlike the ancestor, `0.3` always
 * needs its patch and that patch is >= 4, so `0.3.1` cannot slip in as `0.3` + `.1`.
 */
export const API_VERSION: NamedPattern = {
  regex: new RegExp(`^std/v(?:0\\.[45](?:\\.${N})?|0\\.3\\.(?:[4-9]|[1-9][0-9]+)|0\\.2\\.[2-9](?:-dev)?|1)` + `(?:\\.${N})?(?:-[A-Za-z0-9.-]+)?$`),
  rule: 'pattern',
  expected:
    '"std/v" followed by a supported schema version: 0.4[.N], 0.5[.N], 0.3.N (N >= 4), 0.2.2 to 0.2.9, or 1; ' +
    'optionally one more ".N" and a "-suffix" (e.g. std/v0.4.7)',
};

export const DNS_LABEL: NamedPattern = {
  regex: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
  rule: 'pattern',
  expected: 'lowercase letters, digits and hyphens, starting and ending with a letter or digit',
};

export const IDENTITY_NAMESPACE: NamedPattern = {
  regex: /^[a-z0-9]([-a-z0-9./]*[a-z0-9])?$/,
  rule: 'pattern',
  expected: 'lowercase letters, digits, hyphens, dots and slashes (DNS-style or path-style), starting and ending with a letter or digit',
};

export const MACHINE_NAME: NamedPattern = {
  regex: /^[a-z0-9_]+$/,
  rule: 'pattern',
  expected: 'lowercase letters, digits and underscores',
};

/** Semantic Versioning 2.0.0, from semver.org. */
export const SEMVER: NamedPattern = {
  regex:
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/,
  rule: 'semver',
  expected: 'a semantic version 2.0.0 such as 1.2.3, 1.2.3-beta.1 or 1.2.3+build.5',
};

export const CHECKSUM: NamedPattern = {
  regex: /^(sha256|sha512):[a-f0-9]+$/,
  rule: 'pattern',
  expected: '"sha256:<lowercase hex>" or "sha512:<lowercase hex>"',
};

export const RUNTIME_FRAMEWORK_VERSION: NamedPattern = {
  regex: /^\d+\.\d+\.\d+/,
  rule: 'pattern',
  expected: 'a version starting with three dot-separated integers, e.g. 1.0.0',
};

/** A URI with a scheme (`https:`, `did:`, `urn:`...). */
export const URI_OR_DID: NamedPattern = {
  regex: /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/,
  rule: 'uri',
  expected: 'a DID (did:method:id) or a URI with a scheme',
};

/** A URI or a file path: anything without whitespace at the ends and without control characters. */
export const URI_OR_PATH: NamedPattern = {
  // eslint-disable-next-line no-control-regex
  regex: /^(?![\s])[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f]$/,
  rule: 'uri_or_path',
  expected: 'a URI or a file path (no control characters, no surrounding whitespace)',
};

/** An OpenPGP key fingerprint or key id (hex, optionally in groups of 4) or a URL to the key. */
export const PGP_KEY: NamedPattern = {
  regex: /^(?:(?:0x)?[0-9A-Fa-f]{8,40}|[0-9A-Fa-f]{4}(?: {1,2}[0-9A-Fa-f]{4}){3,9}|(?:https?|hkps?):\/\/[^\s]+)$/,
  rule: 'pgp_key',
  expected: 'an OpenPGP fingerprint or key id in hex (e.g. 4AEE18F83AFDEB23) or a URL to the key',
};

const ALL = [API_VERSION, DNS_LABEL, IDENTITY_NAMESPACE, MACHINE_NAME, SEMVER, CHECKSUM, RUNTIME_FRAMEWORK_VERSION, URI_OR_DID, URI_OR_PATH, PGP_KEY];

/** zod reports a failed regex as `String(regex)`; this finds the named pattern behind it. */
export const NAMED_PATTERNS: ReadonlyMap<string, NamedPattern> = new Map(ALL.map((p) => [String(p.regex), p]));
