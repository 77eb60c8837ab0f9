import YAML from 'yaml';
import { parseSimpleYaml, UNSUPPORTED } from './simple-yaml';

export type ManifestFormat = 'json' | 'yaml';

/** The text could not be read as JSON or YAML; the message says where and why. */
export class ManifestParseError extends Error {
  override readonly name = 'ManifestParseError';
  constructor(
    message: string,
    readonly format: ManifestFormat,
  ) {
    super(message);
  }
}

/**
 * Reads manifest text. Without a format, text whose first non-blank character is `{` is JSON and
 * anything else is YAML. YAML is read as YAML 1.2 (core schema: `yes` stays a string, dates stay
 * strings), one document only, with duplicate keys refused.
 */
export function parseManifestText(text: string, format?: ManifestFormat): { document: unknown; format: ManifestFormat } {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const chosen = format ?? detectFormat(source);
  return { document: chosen === 'json' ? parseJson(source) : parseYaml(source), format: chosen };
}

export function detectFormat(text: string): ManifestFormat {
  return /^\s*\{/.test(text) ? 'json' : 'yaml';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8 says "at position N"; people look for lines and columns.
    const message = (error as Error).message.replace(
      / at position (\d+)(?: \(line \d+ column \d+\))?/,
      (_, offset: string) => ` at ${lineAndColumn(text, Number(offset))}`,
    );
    throw new ManifestParseError(`not valid JSON: ${message}`, 'json');
  }
}

/** Alias resolutions a YAML manifest may need; a manifest has no use for more. */
const MAX_ALIAS_COUNT = 100;

function parseYaml(text: string): unknown {
  // Most manifests are plain block YAML, which simple-yaml reads many times faster; it hands
  // everything else (and every error) to the yaml package.
  const simple = parseSimpleYaml(text);
  if (simple !== UNSUPPORTED) return simple;
  const documents = YAML.parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(documents)) {
    throw new ManifestParseError('not valid YAML: the text is empty', 'yaml');
  }
  if (documents.length === 0) throw new ManifestParseError('not valid YAML: the text is empty', 'yaml');
  if (documents.length > 1) {
    throw new ManifestParseError(`not valid YAML: expected one document, found ${documents.length} (separated by ---)`, 'yaml');
  }
  const [document] = documents;
  if (document.errors.length > 0) {
    const [error] = document.errors;
    throw new ManifestParseError(`not valid YAML: ${error.message} at ${lineAndColumn(text, error.pos[0])}`, 'yaml');
  }
  // maxAliasCount guards against alias bombs ("billion laughs"); past it, yaml throws a
  // ReferenceError, which is the manifest's fault, not the reader's.
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError) {
      throw new ManifestParseError(`not valid YAML: its aliases expand too far (at most ${MAX_ALIAS_COUNT} alias resolutions)`, 'yaml');
    }
    throw error;
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
}
