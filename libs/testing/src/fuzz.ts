import { gzipSync } from 'node:zlib';
import request from 'supertest';
import type { App } from 'supertest/types';

/** One request of the fuzz run that broke the rules: a 5xx, or an error not in the platform shape. */
export interface FuzzFinding {
  method: string;
  path: string;
  case: string;
  status: number;
  body: string;
}

export interface FuzzOptions {
  /** `Authorization` header value with every permission, so requests get past access checks. */
  authorization: string;
  /** Operations not to send (destructive operations, long-running ones): `'post /drain'`. */
  skip?: string[];
  /** Each request's longest wait; a slower answer is a finding (a hang). */
  timeoutMs?: number;
}

interface Operation {
  method: string;
  path: string;
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  'x-websocket'?: boolean;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
}

const BAD_PATH_VALUES: Record<string, string> = {
  'malformed percent-escape': '%E0%A4%A',
  'invalid UTF-8': '%FF%FE',
  'encoded NUL': 'a%00b',
  'encoded slash traversal': '..%2F..%2Fetc',
  'very long segment': 'x'.repeat(4000),
  'negative number': '-1',
  'huge number': '9'.repeat(40),
  'lone surrogate': '%ED%A0%80',
};

const BAD_QUERY_VALUES: Record<string, string> = {
  'empty value': '',
  'encoded NUL': '%00',
  'very long value': 'x'.repeat(8000),
  'malformed percent-escape': '%E0%A4%A',
  'negative number': '-1',
  'not a number': 'NaN',
  'huge number': '9'.repeat(40),
  'lone surrogate': '%ED%A0%80',
};

const wrongValueFor = (schema: JsonSchema | undefined): unknown => {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  if (type === 'string') return { not: 'a string' };
  if (type === 'number' || type === 'integer') return 'not a number';
  if (type === 'boolean') return 'yes';
  if (type === 'array') return 'not an array';
  if (type === 'object') return ['not', 'an', 'object'];
  return { '': null };
};

/** Bodies that are wrong as a whole, then one per field with a value of the wrong type. */
function badBodies(schema: JsonSchema | undefined): Array<[string, string | Buffer, Record<string, string>]> {
  const json = { 'Content-Type': 'application/json' };
  const cases: Array<[string, string | Buffer, Record<string, string>]> = [
    ['not JSON', '{"a":', json],
    ['JSON null', 'null', json],
    ['JSON array', '[1,2,3]', json],
    ['JSON string', '"text"', json],
    ['empty object', '{}', json],
    ['deeply nested', `{"a":${'['.repeat(300)}${']'.repeat(300)}}`, json],
    ['NUL in a string', '{"name":"a\\u0000b","id":"x\\u0000"}', json],
    ['lone surrogate', '{"name":"\\ud800","id":"\\udc00"}', json],
    ['prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}', json],
    ['undecodable gzip', Buffer.from('this is not gzip'), { ...json, 'Content-Encoding': 'gzip' }],
    ['undecodable deflate', Buffer.from('this is not deflate'), { ...json, 'Content-Encoding': 'deflate' }],
    ['undecodable brotli', Buffer.from('this is not brotli'), { ...json, 'Content-Encoding': 'br' }],
    ['gzip of broken JSON', gzipSync('{"a":'), { ...json, 'Content-Encoding': 'gzip' }],
    ['wrong content type', 'a=b&c=d', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['binary body', Buffer.from([0, 159, 146, 150, 255]), { 'Content-Type': 'application/octet-stream' }],
  ];
  for (const [field, fieldSchema] of Object.entries(schema?.properties ?? {})) {
    cases.push([`wrong type for ${field}`, JSON.stringify({ [field]: wrongValueFor(fieldSchema) }), json]);
    cases.push([`huge ${field}`, JSON.stringify({ [field]: 'x'.repeat(200_000) }), json]);
  }
  return cases;
}

const looksLikeValue = (schema: JsonSchema | undefined) => (schema?.type === 'integer' || schema?.type === 'number' ? '1' : 'fuzz');

/**
 * Sends malformed paths, queries, bodies and encodings to every operation of a service's OpenAPI
 * document, with and without credentials, and returns every answer that is a 5xx, that hangs, or
 * whose error is not in the platform's shape (`{error: {type, code, message}, requestId}`).
 */
export async function fuzzOpenApi(app: App, options: FuzzOptions): Promise<FuzzFinding[]> {
  const document = (await request(app).get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  const findings: FuzzFinding[] = [];
  const skip = new Set((options.skip ?? []).map((entry) => entry.toLowerCase()));
  const timeout = options.timeoutMs ?? 10_000;

  const send = async (
    method: string,
    path: string,
    label: string,
    url: string,
    body?: string | Buffer,
    headers: Record<string, string> = {},
    authorized = true,
  ) => {
    let test = request(app)[method as 'get'](url).timeout(timeout);
    if (authorized) test = test.set('Authorization', options.authorization);
    for (const [name, value] of Object.entries(headers)) test = test.set(name, value);
    let status: number;
    let text: string;
    try {
      const res = body === undefined ? await test : await test.send(body);
      status = res.status;
      text = res.text ?? '';
    } catch (error) {
      const timedOut = (error as { timeout?: number }).timeout !== undefined || /Timeout/i.test(String((error as Error).message));
      findings.push({ method, path, case: label, status: timedOut ? 0 : -1, body: timedOut ? `no answer within ${timeout} ms` : String(error) });
      return;
    }
    if (status >= 500 || (status >= 400 && !inErrorShape(text))) findings.push({ method, path, case: label, status, body: text.slice(0, 300) });
  };

  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation['x-websocket'] || skip.has(`${method} ${template}`.toLowerCase())) continue;
      const params = operation.parameters ?? [];
      const fill = (override?: [string, string]) =>
        template.replace(/\{([^}]+)\}/g, (_match, name: string) =>
          override?.[0] === name ? override[1] : encodeURIComponent(looksLikeValue(params.find((p) => p.name === name)?.schema)),
        );
      const validPath = fill();
      await send(method, template, 'no credentials', validPath, undefined, {}, false);
      await send(method, template, 'forged token', validPath, undefined, { Authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }, false);
      for (const param of params.filter((p) => p.in === 'path')) {
        for (const [label, value] of Object.entries(BAD_PATH_VALUES)) await send(method, template, `path ${param.name}: ${label}`, fill([param.name, value]));
      }
      for (const param of params.filter((p) => p.in === 'query')) {
        for (const [label, value] of Object.entries(BAD_QUERY_VALUES))
          await send(method, template, `query ${param.name}: ${label}`, `${validPath}?${param.name}=${value}`);
        await send(method, template, `query ${param.name}: object`, `${validPath}?${param.name}[a]=1&${param.name}[b][c]=2`);
        await send(method, template, `query ${param.name}: repeated`, `${validPath}?${param.name}=1&${param.name}=2`);
      }
      if (['post', 'put', 'patch'].includes(method)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        for (const [label, body, headers] of badBodies(schema)) await send(method, template, `body: ${label}`, validPath, body, headers);
      }
    }
  }
  return findings;
}

function inErrorShape(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { type?: unknown; code?: unknown; message?: unknown }; requestId?: unknown };
    return (
      typeof body.error?.type === 'string' &&
      typeof body.error.code === 'string' &&
      typeof body.error.message === 'string' &&
      typeof body.requestId === 'string'
    );
  } catch {
    return false;
  }
}
