// A fast reader for the plain block YAML that manifests are almost always written in: nested block
// mappings and sequences, plain, single- and double-quoted one-line scalars, literal and folded
// block scalars (`|`, `|-`, `>`, `>-`), one-line flow sequences of plain words, comments. The `yaml`
// package spends ~95% of a YAML validation building its concrete syntax tree; this reader does the
// common case in a fraction of that. Anything else (flow mappings, anchors, tags, multi-line flow
// or quoted scalars, several documents, duplicate keys, odd indentation, non-string keys, ...)
// returns UNSUPPORTED and the caller falls back to the `yaml` package, which also produces the
// error messages. simple-yaml.test.ts checks it gives the same result as `yaml` wherever it answers.

export const UNSUPPORTED = Symbol('unsupported YAML');

interface Line {
  indent: number;
  content: string;
  /** index in Reader.raw */
  row: number;
}

class Unsupported extends Error {}
const bail = (): never => {
  throw new Unsupported();
};

export function parseSimpleYaml(text: string): unknown {
  try {
    const raw = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    const lines = contentLines(raw);
    if (lines.length === 0 || lines[0].indent !== 0) return UNSUPPORTED;
    const reader: Reader = { raw, lines, next: 0 };
    if (isSequenceItem(lines[0].content)) return UNSUPPORTED;
    const document = readMapping(reader, 0);
    if (reader.next !== lines.length) return UNSUPPORTED;
    return document;
  } catch (error) {
    if (error instanceof Unsupported) return UNSUPPORTED;
    throw error;
  }
}

/** Lines with content, comments and a leading document marker dropped. */
function contentLines(raw: readonly string[]): Line[] {
  const lines: Line[] = [];
  let first = true;
  for (let row = 0; row < raw.length; row++) {
    const line = raw[row];
    if (line.includes('\t')) bail();
    const content = line.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    if (content.startsWith('---') || content.startsWith('...') || content.startsWith('%')) {
      // `---` alone before the first content is the usual document start; anything else is not ours.
      if (first && line === '---') {
        first = false;
        continue;
      }
      bail();
    }
    first = false;
    lines.push({ indent: line.length - content.length, content: content.trimEnd(), row });
  }
  return lines;
}

type Reader = { raw: readonly string[]; lines: Line[]; next: number };

const isSequenceItem = (content: string) => content === '-' || content.startsWith('- ');

function readMapping(reader: Reader, indent: number): Record<string, unknown> {
  const mapping: Record<string, unknown> = {};
  while (reader.next < reader.lines.length) {
    const line = reader.lines[reader.next];
    if (line.indent < indent) break;
    if (line.indent > indent || isSequenceItem(line.content)) bail();
    const { key, rest } = splitEntry(line.content) ?? bail();
    if (Object.prototype.hasOwnProperty.call(mapping, key) || key === '__proto__') bail();
    reader.next++;
    mapping[key] = rest === '' || rest.startsWith('#') ? readNested(reader, indent, true) : readInlineScalar(reader, rest, indent);
  }
  return mapping;
}

function readSequence(reader: Reader, indent: number): unknown[] {
  const items: unknown[] = [];
  while (reader.next < reader.lines.length) {
    const line = reader.lines[reader.next];
    if (line.indent < indent || !isSequenceItem(line.content)) break;
    if (line.indent > indent) bail();
    if (line.content === '-') {
      reader.next++;
      items.push(readNested(reader, indent, false));
      continue;
    }
    // `- key: value` or `- - x`: the rest of the line opens a block at its own column.
    const rest = line.content.slice(2);
    const column = indent + 2 + (rest.length - rest.trimStart().length);
    const inner = rest.trimStart();
    if (isSequenceItem(inner) || splitEntry(inner)) {
      reader.lines[reader.next] = { indent: column, content: inner, row: line.row };
      items.push(isSequenceItem(inner) ? readSequence(reader, column) : readMapping(reader, column));
    } else {
      reader.next++;
      items.push(readInlineScalar(reader, inner, indent));
    }
  }
  return items;
}

/** The block after `key:` or a lone `-`: deeper lines, a same-column sequence after a key, or null. */
function readNested(reader: Reader, indent: number, afterKey: boolean): unknown {
  const line = reader.lines[reader.next];
  if (!line || line.indent < indent) return null;
  if (line.indent === indent) return afterKey && isSequenceItem(line.content) ? readSequence(reader, indent) : null;
  return isSequenceItem(line.content) ? readSequence(reader, line.indent) : readMapping(reader, line.indent);
}

function readInlineScalar(reader: Reader, text: string, indent: number): unknown {
  if (BLOCK_SCALAR_HEADER.test(text)) return readBlockScalar(reader, text, indent);
  const value = scalar(text);
  // A deeper line after a scalar would continue it (a multi-line scalar) or be an error.
  const next = reader.lines[reader.next];
  if (next && next.indent > indent) bail();
  return value;
}

const PLAIN_KEY = /^[A-Za-z0-9_$/.][A-Za-z0-9_$/. @()+=-]*$/;

/** `key: rest` (rest '' when a block follows), or undefined when the line is not a mapping entry. */
function splitEntry(content: string): { key: string; rest: string } | undefined {
  if (content.startsWith('"') || content.startsWith("'")) {
    const { value, end } = quoted(content);
    if (content[end] !== ':') return undefined;
    const after = content.slice(end + 1);
    if (after !== '' && !/^\s/.test(after)) bail();
    return { key: value, rest: after.trim() };
  }
  const colon = content.search(/:(\s|$)/);
  if (colon === -1) return undefined;
  const key = content.slice(0, colon);
  if (!PLAIN_KEY.test(key) || key.endsWith(' ') || typeof resolvePlain(key) !== 'string') bail();
  return { key, rest: content.slice(colon + 1).trim() };
}

/** A one-line scalar: quoted, or plain with any ` # comment` dropped. */
function scalar(text: string): unknown {
  if (text.startsWith('"') || text.startsWith("'")) {
    const { value, end } = quoted(text);
    const rest = text.slice(end);
    if (rest !== '' && !/^\s+#/.test(rest)) bail();
    return value;
  }
  const comment = text.search(/\s#/);
  // Empty flow collections and one-line lists of words are common (`enum: [low, high]`).
  if (text.startsWith('[')) return flowSequence(text);
  if (/^\{\s*\}(?:\s+#.*)?$/.test(text)) return {};
  const plain = comment === -1 ? text : text.slice(0, comment).trimEnd();
  if (/^[[\]{}&*!|>%@`?:,#]/.test(plain) || plain.startsWith('- ') || /:(\s|$)/.test(plain)) bail();
  return resolvePlain(plain);
}

/** A one-line quoted scalar at the start of `text`: its value and the index after the closing quote. */
function quoted(text: string): { value: string; end: number } {
  if (text[0] === "'") {
    let i = 1;
    let value = '';
    for (;;) {
      const close = text.indexOf("'", i);
      if (close === -1) bail();
      value += text.slice(i, close);
      if (text[close + 1] !== "'") return { value, end: close + 1 };
      value += "'";
      i = close + 2;
    }
  }
  let i = 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  if (i >= text.length) bail();
  const body = text.slice(0, i + 1);
  // YAML's double-quoted escapes are a superset of JSON's; what JSON cannot read goes to `yaml`.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(body)) bail();
  try {
    return { value: JSON.parse(body) as string, end: i + 1 };
  } catch {
    return bail();
  }
}

const FLOW_WORD = /^[^\s[\]{},#&*!|>'"%@`?:-][^[\]{},#]*$/;

/** `[a, b, 1]`: plain words only, on one line; anything richer goes to `yaml`. */
function flowSequence(text: string): unknown[] {
  const close = text.indexOf(']');
  if (close === -1 || !/^(?:\s+#.*)?$/.test(text.slice(close + 1))) bail();
  const body = text.slice(1, close).trim();
  if (body === '') return [];
  return body.split(',').map((item) => {
    const word = item.trim();
    if (!FLOW_WORD.test(word) || /:(\s|$)/.test(word) || word.endsWith(' ')) bail();
    return resolvePlain(word);
  });
}

// `|` keeps line breaks, `>` folds them into spaces; `-` drops the final line break. Keep (`+`) and
// explicit indentation indicators go to `yaml`.
const BLOCK_SCALAR_HEADER = /^[|>]-?(?:\s+#.*)?$/;

function readBlockScalar(reader: Reader, header: string, parentIndent: number): string {
  const start = reader.lines[reader.next - 1].row + 1;
  let end = start;
  let indent = -1;
  const body: string[] = [];
  for (; end < reader.raw.length; end++) {
    const line = reader.raw[end];
    const content = line.trimStart();
    const lineIndent = line.length - content.length;
    if (content === '') {
      if (indent !== -1 ? lineIndent > indent : lineIndent > parentIndent) bail(); // spaces that are content
      body.push('');
      continue;
    }
    if (indent === -1) {
      if (lineIndent <= parentIndent) break;
      indent = lineIndent;
      if (body.length) bail(); // leading empty lines: left to `yaml`
    } else if (lineIndent < indent) break;
    body.push(line.slice(indent));
  }
  // Trailing empty lines belong to the scalar only for chomping, which drops them here.
  let last = body.length;
  while (last > 0 && body[last - 1] === '') last--;
  const lines = body.slice(0, last);
  while (reader.next < reader.lines.length && reader.lines[reader.next].row < start + last) reader.next++;
  const next = reader.lines[reader.next];
  if (next && next.indent > parentIndent && next.row < end) bail();
  if (lines.length === 0) return '';
  const folded = header[0] === '>' ? fold(lines) : lines.join('\n');
  return header[1] === '-' ? folded : `${folded}\n`;
}

/** Folding of `>`: single breaks between text lines become spaces, runs of empty lines stay breaks. */
function fold(lines: string[]): string {
  let out = '';
  let breaks = 0;
  for (const line of lines) {
    if (line === '') {
      breaks++;
      continue;
    }
    if (line.startsWith(' ') || line.endsWith(' ')) bail(); // more-indented lines keep their breaks: `yaml`
    out += out === '' ? '\n'.repeat(breaks) + line : (breaks ? '\n'.repeat(breaks) : ' ') + line;
    breaks = 0;
  }
  return out;
}

// YAML 1.2 core schema, as the `yaml` package resolves it; octal, hex, infinities and NaN are left to it.
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const OTHER_NUMBER = /^(?:0o|0x|[-+]?\.(?:inf|Inf|INF)$|\.nan$|\.NaN$|\.NAN$)/;

function resolvePlain(text: string): unknown {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text)) return parseInt(text, 10);
  if (FLOAT.test(text)) return parseFloat(text);
  if (OTHER_NUMBER.test(text)) bail();
  return text;
}
