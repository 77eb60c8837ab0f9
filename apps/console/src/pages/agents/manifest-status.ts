import { parseDocument } from 'yaml';

export type ManifestFormat = 'json' | 'yaml';
export type LifecycleStatus = 'deprecated' | 'revoked';

/** The next patch version: a status change is a new version, since published versions never change. */
export function nextPatch(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`"${version}" is not a semantic version`);
  return `${match[1]}.${match[2]}.${Number(match[3]) + 1}`;
}

/**
 * The manifest of the version that deprecates or revokes an agent (spec 1's `metadata.status`, with
 * `deprecated_message` or `revoked_at`), written in the format it was published in: YAML keeps its
 * comments and layout, JSON its two-space indentation.
 */
export function withLifecycleStatus(
  text: string,
  format: ManifestFormat,
  status: LifecycleStatus,
  options: { message?: string; now?: Date } = {},
): { text: string; version: string } {
  const extra: Record<string, string> =
    status === 'deprecated'
      ? options.message
        ? { deprecated_message: options.message.slice(0, 500) }
        : {}
      : { revoked_at: (options.now ?? new Date()).toISOString() };
  if (format === 'json') {
    const manifest = JSON.parse(text) as { metadata?: Record<string, unknown> };
    const metadata = manifest.metadata ?? {};
    const version = nextPatch(String(metadata.version ?? ''));
    manifest.metadata = { ...metadata, version, status, ...extra };
    return { text: `${JSON.stringify(manifest, null, 2)}\n`, version };
  }
  const document = parseDocument(text);
  if (document.errors.length) throw new Error(document.errors[0].message);
  const version = nextPatch(String(document.getIn(['metadata', 'version']) ?? ''));
  document.setIn(['metadata', 'version'], version);
  document.setIn(['metadata', 'status'], status);
  for (const [key, value] of Object.entries(extra)) document.setIn(['metadata', key], value);
  return { text: document.toString(), version };
}
