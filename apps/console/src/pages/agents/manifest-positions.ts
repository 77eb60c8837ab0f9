import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';

/** One segment of a path into the manifest: an object key or an array index. */
export type PathSegment = string | number;

/** Where in the editor's text an error belongs (offsets are character offsets; line and column 1-based). */
export interface TextSpan {
  from: number;
  to: number;
  line: number;
  column: number;
  /** false when the path leads past what the document holds (a missing key): the span is its nearest parent. */
  exact: boolean;
}

// The prefixes the platform puts before a manifest path: the gateway's `body.manifest`, JSON Path's `$`.
const PREFIXES = [/^body\.manifest(?=$|[.[])/, /^manifest(?=$|[.[])/, /^\$/];

/**
 * Reads the path of a validation error into segments: `$.security.threat_model[0].category`,
 * `body.manifest.metadata["x-signature"].value`, the request validator's `body.manifest.security.threat_model.0`,
 * `metadata.labels.team`, or zod's array of keys
 * (`["body", "manifest", "metadata", "name"]`).
 */
export function parseIssuePath(path: string | readonly PathSegment[]): PathSegment[] {
  if (Array.isArray(path)) {
    const segments = [...path] as PathSegment[];
    if (segments[0] === 'body' && segments[1] === 'manifest') return segments.slice(2);
    return segments;
  }
  let rest = (path as string).trim();
  for (const prefix of PREFIXES) rest = rest.replace(prefix, '');
  const segments: PathSegment[] = [];
  const token = /^(?:\.?([A-Za-z_$][\w$-]*)|(?:\[(\d+)\]|\.(\d+)(?=$|[.[]))|\[("(?:[^"\\]|\\.)*")\]|\['((?:[^'\\]|\\.)*)'\])/;
  while (rest.length) {
    const match = token.exec(rest);
    if (!match) {
      // Whatever the path says past here is not one we can read: stop at what we have.
      break;
    }
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined || match[3] !== undefined) segments.push(Number(match[2] ?? match[3]));
    else if (match[4] !== undefined) segments.push(JSON.parse(match[4]) as string);
    else segments.push(match[5]);
    rest = rest.slice(match[0].length);
  }
  return segments;
}

const rangeOf = (node: YamlNode | null | undefined): [number, number] | undefined =>
  node?.range ? [node.range[0], node.range[1]] : undefined;

const keyMatches = (key: unknown, segment: PathSegment): boolean => {
  const value = isScalar(key) ? key.value : key;
  return String(value) === String(segment);
};

/**
 * The span of the value a path names, in YAML or JSON text (JSON is read as YAML, whose parser keeps
 * each node's source range). A key whose value is a scalar spans `key: value`; one whose value is a
 * map or list spans only its key (its line); an array item spans the item. A path past what the
 * document holds (a required key that is missing) lands on the nearest node that exists, marked not exact.
 */
export function locatePath(text: string, path: string | readonly PathSegment[]): TextSpan {
  const segments = parseIssuePath(path);
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, keepSourceTokens: false, uniqueKeys: false });
  const span = (range: [number, number], exact: boolean): TextSpan => {
    const { line, col } = lines.linePos(range[0]);
    return { from: range[0], to: Math.max(range[1], range[0]), line, column: col, exact };
  };
  const whole = (): [number, number] => {
    const first = text.search(/\S/);
    const start = first < 0 ? 0 : first;
    const lineEnd = text.indexOf('\n', start);
    return [start, lineEnd < 0 ? text.length : lineEnd];
  };

  let node: unknown = document.contents;
  // The span of what was last found: the pair's key (and scalar value) or the array item.
  let found: [number, number] = rangeOf(document.contents as YamlNode) ?? whole();
  let foundAny = false;
  for (const [index, segment] of segments.entries()) {
    let next: unknown;
    let nextSpan: [number, number] | undefined;
    if (isMap(node)) {
      const pair = [...node.items].reverse().find((item) => isPair(item) && keyMatches(item.key, segment));
      if (pair) {
        next = pair.value;
        const key = rangeOf(pair.key as YamlNode);
        const value = rangeOf(pair.value as YamlNode);
        if (key) nextSpan = isScalar(pair.value) && value ? [key[0], value[1]] : key;
      }
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item !== undefined) {
        next = item;
        const itemRange = rangeOf(item as YamlNode);
        // A list item that is a map spans its first line, as a key would.
        if (itemRange) nextSpan = isMap(item) || isSeq(item) ? firstLine(text, itemRange) : itemRange;
      }
    }
    if (!nextSpan) return span(foundAny ? found : firstLine(text, found), false);
    node = next;
    found = nextSpan;
    foundAny = true;
    if (index === segments.length - 1) return span(found, true);
  }
  return span(foundAny ? found : firstLine(text, found), segments.length === 0);
}

function firstLine(text: string, range: [number, number]): [number, number] {
  const end = text.indexOf('\n', range[0]);
  return [range[0], end < 0 || end > range[1] ? range[1] : end];
}
