// RFC 8785 JSON Canonicalization Scheme. The `canonicalize` package implements the same thing
// but ships as ESM with an import-only export, which the CommonJS services and jest cannot load;
// canonical-json.test.ts checks this implementation against it.
//
// RFC 8785 in short: no whitespace; object members sorted by the UTF-16 code units of their names
// (JavaScript's default sort); strings and numbers serialized as ECMAScript JSON.stringify does.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return primitive(value);
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  }
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    members.push(`${primitive(key)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}

function primitive(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`RFC 8785 has no form for ${value}`);
  }
  if (typeof value === 'string' && hasLoneSurrogate(value)) {
    throw new TypeError('RFC 8785 has no form for a string with a lone surrogate');
  }
  if (typeof value === 'bigint') throw new TypeError('RFC 8785 has no form for a bigint');
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`RFC 8785 has no form for ${typeof value}`);
  return text;
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
