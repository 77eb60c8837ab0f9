import { parseDocument } from 'yaml';
import { locatePath, type PathSegment } from './manifest-positions';
import type { ManifestFormat } from './manifest-status';

/** A validation problem placed in the editor's text (CodeMirror's lint Diagnostic takes these fields). */
export interface PlacedIssue {
  from: number;
  to: number;
  line: number;
  severity: 'error' | 'warning';
  /** The path as the API gave it, e.g. `$.metadata.name`. */
  path: string;
  message: string;
  code?: string;
}

/** An issue as the platform reports one: the registry's and the gateway's `{path, message, code}`. */
export interface ReportedIssue {
  path: string | readonly PathSegment[];
  message: string;
  code?: string;
}

/** The issues of a refused publish (`error.details.issues`, and `warnings` when present), placed in the text. */
export function placeIssues(text: string, details: unknown): PlacedIssue[] {
  const body = (details ?? {}) as { issues?: unknown; warnings?: unknown };
  const place = (list: unknown, severity: PlacedIssue['severity']): PlacedIssue[] =>
    (Array.isArray(list) ? (list as ReportedIssue[]) : [])
      .filter((issue) => issue && (typeof issue.path === 'string' || Array.isArray(issue.path)) && typeof issue.message === 'string')
      .map((issue) => {
        const span = locatePath(text, issue.path);
        const path = Array.isArray(issue.path) ? issue.path.join('.') : (issue.path as string);
        // A missing key is reported at its parent: say which key the parent lacks.
        const message = span.exact ? issue.message : `${issue.message} (at ${path})`;
        return { from: span.from, to: span.to, line: span.line, severity, path, message, code: issue.code };
      });
  return [...place(body.issues, 'error'), ...place(body.warnings, 'warning')].sort((a, b) => a.from - b.from);
}

/** What stops the text from being read at all, placed where the parser stopped; empty when it reads. */
export function syntaxProblems(text: string, format: ManifestFormat): PlacedIssue[] {
  if (format === 'json') {
    try {
      JSON.parse(text);
      return [];
    } catch (error) {
      // V8 says "... at position N" (and newer ones "(line L column C)").
      const message = (error as Error).message;
      const at = /position (\d+)/.exec(message);
      const from = at ? Math.min(Number(at[1]), text.length) : 0;
      const line = text.slice(0, from).split('\n').length;
      return [{ from, to: Math.min(from + 1, text.length), line, severity: 'error', path: '$', message, code: 'manifest.parse.json' }];
    }
  }
  const document = parseDocument(text, { prettyErrors: false });
  return document.errors.map((error) => {
    const [from, to] = error.pos;
    const line = text.slice(0, from).split('\n').length;
    return { from, to: Math.max(to, from), line, severity: 'error' as const, path: '$', message: error.message, code: 'manifest.parse.yaml' };
  });
}

/** YAML or JSON, from a file's name or, failing that, its first character. */
export function formatOf(text: string, fileName?: string): ManifestFormat {
  if (fileName && /\.json$/i.test(fileName)) return 'json';
  if (fileName && /\.ya?ml$/i.test(fileName)) return 'yaml';
  return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
}

/** The manifest as an object, from YAML or JSON text; undefined when it does not read as one. */
export function manifestObject(text: string, format: ManifestFormat): Record<string, unknown> | undefined {
  try {
    const value: unknown = format === 'json' ? JSON.parse(text) : parseDocument(text).toJS();
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
