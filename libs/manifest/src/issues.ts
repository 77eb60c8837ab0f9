import type { z } from 'zod';
import { API_VERSION, NAMED_PATTERNS } from './patterns';

export type ManifestIssue = {
  /** JSON path of the offending value, e.g. `$.metadata.name` or `$.security.threat_model[0]` */
  path: string;
  /** what was expected and what was found */
  message: string;
  /** stable code: `manifest.<field path without indices>.<rule>`, e.g. `manifest.metadata.name.pattern` */
  code: string;
};

type Segment = PropertyKey;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.metadata['x-signature'].value`, `$.security.threat_model[0].category` */
export function jsonPath(segments: readonly Segment[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(String(segment))) out += `.${String(segment)}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

// Maps whose keys are chosen by the author: their keys stay out of codes.
const FREE_KEY_MAPS = new Set(['metadata.labels', 'metadata.annotations']);

/** The field path of a code: array indices and author-chosen map keys dropped. */
export function fieldPath(segments: readonly Segment[]): string {
  const parts: string[] = [];
  for (const segment of segments) {
    if (typeof segment === 'number') continue;
    if (FREE_KEY_MAPS.has(parts.join('.'))) continue;
    parts.push(String(segment));
  }
  return parts.join('.');
}

export function issueCode(segments: readonly Segment[], rule: string): string {
  const field = fieldPath(segments);
  return field ? `manifest.${field}.${rule}` : `manifest.${rule}`;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${value.length} items)`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `"${value.length > 80 ? `${value.slice(0, 77)}...` : value}"`;
  return `${typeof value} ${String(value)}`;
}

function valueAt(root: unknown, segments: readonly Segment[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function label(segments: readonly Segment[]): string {
  return segments.length ? jsonPath(segments).slice(2) : 'the manifest';
}

/** Turns one zod issue into manifest issues (an unknown-keys issue becomes one per key). */
export function fromZodIssue(issue: z.core.$ZodIssue, document: unknown, fromYaml = false): ManifestIssue[] {
  const segments = issue.path;
  const found = valueAt(document, segments);
  const at = jsonPath(segments);
  const name = label(segments);
  const one = (rule: string, message: string): ManifestIssue[] => [{ path: at, code: issueCode(segments, rule), message }];

  switch (issue.code) {
    case 'invalid_type': {
      if (found === undefined) return one('required', `${name} is required (expected ${issue.expected})`);
      const expected = issue.expected === 'record' ? 'object' : issue.expected === 'int' ? 'integer' : issue.expected;
      const hint = fromYaml && expected === 'string' && (typeof found === 'number' || typeof found === 'boolean') ? ' (in YAML, put the value in quotes)' : '';
      return one('type', `${name} must be ${article(expected)} ${expected}; found ${describeValue(found)}${hint}`);
    }
    case 'invalid_value': {
      if (found === undefined) return one('required', `${name} is required (one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')})`);
      const options = issue.values.map((v) => JSON.stringify(v));
      const suggestion = suggest(found, issue.values);
      return one('enum', `${name} must be one of ${options.join(', ')}; found ${describeValue(found)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
    }
    case 'invalid_format':
      return fromFormatIssue(issue, name, found, one);
    case 'too_big':
    case 'too_small':
      return fromBoundIssue(issue, name, found, one);
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: jsonPath([...segments, key]),
        code: issueCode(segments, 'unknown_key'),
        message: `${name} does not allow the key "${key}"; remove it or check its spelling`,
      }));
    case 'custom': {
      const rule = String(issue.params?.rule ?? 'invalid');
      if (rule === 'unique') {
        const duplicates = Array.isArray(found) ? found.filter((v, i) => found.indexOf(v) !== i) : [];
        return one('unique', `${name} must not repeat values; found duplicate ${[...new Set(duplicates)].map((v) => JSON.stringify(v)).join(', ')}`);
      }
      return one(rule, `${name}: ${issue.message}`);
    }
    case 'not_multiple_of':
      return one('multiple_of', `${name} must be a multiple of ${issue.divisor}; found ${describeValue(found)}`);
    default:
      return one('invalid', `${name}: ${issue.message}; found ${describeValue(found)}`);
  }
}

type One = (rule: string, message: string) => ManifestIssue[];

const FORMATS: Record<string, { rule: string; expected: string }> = {
  uuid: { rule: 'uuid', expected: 'a UUID (RFC 9562), e.g. 3f2c1d9e-8b7a-4c6d-9e5f-1a2b3c4d5e6f' },
  datetime: { rule: 'date_time', expected: 'an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z' },
  email: { rule: 'email', expected: 'an email address' },
  url: { rule: 'uri', expected: 'an absolute URI, e.g. https://example.org/agents' },
};

function fromFormatIssue(issue: z.core.$ZodIssueInvalidStringFormat, name: string, found: unknown, one: One): ManifestIssue[] {
  if (issue.format === 'uuid' && issue.pattern?.includes('-4[')) {
    return one('uuid', `${name} must be a version 4 UUID (xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx); found ${describeValue(found)}`);
  }
  const named = issue.format === 'regex' && issue.pattern ? NAMED_PATTERNS.get(issue.pattern) : undefined;
  if (named) {
    // Manifests written for the ancestor schema say `ossa/v...`; tell their authors the one change to make.
    const hint = named === API_VERSION && typeof found === 'string' && found.startsWith('ossa/v') ? ` (write "std/v" instead of "ossa/v")` : '';
    return one(named.rule, `${name} must be ${named.expected}; found ${describeValue(found)}${hint}`);
  }
  const format = FORMATS[issue.format];
  if (format) return one(format.rule, `${name} must be ${format.expected}; found ${describeValue(found)}`);
  return one('format', `${name} must be a valid ${issue.format}; found ${describeValue(found)}`);
}

function fromBoundIssue(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, name: string, found: unknown, one: One): ManifestIssue[] {
  const big = issue.code === 'too_big';
  const limit = big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  const comparison = big ? 'at most' : 'at least';
  if (issue.origin === 'string') {
    const length = typeof found === 'string' ? found.length : 0;
    return one(big ? 'max_length' : 'min_length', `${name} must be ${comparison} ${limit} characters long; found ${length}`);
  }
  if (issue.origin === 'array') {
    const length = Array.isArray(found) ? found.length : 0;
    return one(big ? 'max_items' : 'min_items', `${name} must have ${comparison} ${limit} items; found ${length}`);
  }
  return one(big ? 'maximum' : 'minimum', `${name} must be ${comparison} ${limit}; found ${describeValue(found)}`);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

/** A case-insensitive or separator-insensitive match among the allowed values, if any. */
function suggest(found: unknown, values: readonly unknown[]): string | undefined {
  if (typeof found !== 'string') return undefined;
  const squash = (s: string) => s.toLowerCase().replace(/[-_ ]/g, '');
  const match = values.find((v) => typeof v === 'string' && squash(v) === squash(found));
  return typeof match === 'string' ? match : undefined;
}
