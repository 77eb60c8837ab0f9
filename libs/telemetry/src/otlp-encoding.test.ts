import { randomBytes } from 'node:crypto';
import { otlpProtobufAsJson as decodeProtobuf } from './fixtures/otlp-protobuf';
import { JsonSpanEncoder, ProtobufSpanEncoder, type FinishedServerSpan } from './otlp-encoding';
import { hexOfWords, idWordsOfHex } from './span-ids';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const failedPath = `/files/${'ü'.repeat(200)}`;
const sampled: FinishedServerSpan = {
  ...idWordsOfHex(traceId, spanId),
  startMs: 1795746846025.123,
  endMs: 1795746846027.5,
  method: 'GET',
  target: '/things/7',
  route: '/things/:id',
  statusCode: 200,
  status: 0,
};
// A child of a remote caller, with trace state, a long non-ASCII path and a failed response.
const failed: FinishedServerSpan = {
  ...sampled,
  ...idWordsOfHex(traceId, 'a3ce929d0e0e4736'),
  parentSpanId: '00f067aa0ba902b7',
  traceState: 'vendor=opaque',
  method: 'POST',
  target: `${failedPath}?page=2`,
  route: undefined,
  statusCode: 503,
  status: 2,
  statusMessage: 'upstream down',
  name: 'POST /files (renamed)',
  attributes: { 'file.count': 3, 'file.kind': 'image' },
};
const resource = { 'service.name': 'auth', 'process.pid': 4242, 'process.command_args': ['node', 'main.js'], 'host.arch': 'amd64', ratio: 0.5, debug: false };

describe('OTLP span encoding', () => {
  it('writes server spans and their resource as the official protobuf definitions read them', () => {
    const encoder = new ProtobufSpanEncoder('@platform/telemetry');
    encoder.add(sampled);
    encoder.add(failed);
    expect(encoder.spans).toBe(2);
    const body = Buffer.from(encoder.request(resource, encoder.takeBatch()));
    const request = decodeProtobuf(body);
    expect(encoder.spans).toBe(0);

    expect(request.resourceSpans).toHaveLength(1);
    const [{ resource: decodedResource, scopeSpans }] = request.resourceSpans;
    expect(decodedResource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'auth' } },
      { key: 'process.pid', value: { intValue: '4242' } },
      { key: 'process.command_args', value: { arrayValue: { values: [{ stringValue: 'node' }, { stringValue: 'main.js' }] } } },
      { key: 'host.arch', value: { stringValue: 'amd64' } },
      { key: 'ratio', value: { doubleValue: 0.5 } },
      { key: 'debug', value: { boolValue: false } },
    ]);
    expect(scopeSpans).toHaveLength(1);
    expect(scopeSpans[0].scope.name).toBe('@platform/telemetry');
    const [first, second] = scopeSpans[0].spans;

    expect(first).toEqual({
      traceId,
      spanId,
      name: 'GET /things/:id',
      kind: 2, // SERVER
      startTimeUnixNano: '1795746846025123000',
      endTimeUnixNano: '1795746846027500000',
      attributes: [
        { key: 'http.request.method', value: { stringValue: 'GET' } },
        { key: 'url.path', value: { stringValue: '/things/7' } },
        { key: 'url.scheme', value: { stringValue: 'http' } },
        { key: 'http.route', value: { stringValue: '/things/:id' } },
        { key: 'http.response.status_code', value: { intValue: '200' } },
      ],
      events: [],
      links: [],
    });
    // Span.flags (field 16, fixed32) is newer than the definitions read here: found in the bytes.
    // Sampled, and whether the parent is remote is known: not (0x101), or remote (0x301).
    const flags = (value: number) => Buffer.from([0x85, 0x01, value & 0xff, value >> 8, 0, 0]);
    expect(body.includes(flags(0x101))).toBe(true);
    expect(body.includes(flags(0x301))).toBe(true);
    expect(second.parentSpanId).toBe(failed.parentSpanId);
    expect(second.traceState).toBe('vendor=opaque');
    expect(second.status).toEqual({ code: 2, message: 'upstream down' }); // ERROR
    expect(second.name).toBe('POST /files (renamed)');
    expect(second.attributes.find((attribute) => attribute.key === 'url.path')?.value.stringValue).toBe(failedPath);
    expect(second.attributes.map((attribute) => attribute.key)).not.toContain('http.route');
    // The handler's own attributes follow the HTTP ones.
    expect(second.attributes.slice(-2)).toEqual([
      { key: 'file.count', value: { intValue: '3' } },
      { key: 'file.kind', value: { stringValue: 'image' } },
    ]);
  });

  it('starts each request empty, and keeps the resource it encoded first', () => {
    const encoder = new ProtobufSpanEncoder('scope');
    encoder.add(sampled);
    decodeProtobuf(encoder.request(resource, encoder.takeBatch()));
    encoder.add(failed);
    encoder.add({ ...sampled, route: '/größen/:id' });
    const [{ resource: decodedResource, scopeSpans }] = decodeProtobuf(encoder.request({ other: 'ignored' }, encoder.takeBatch())).resourceSpans;
    expect(scopeSpans[0].spans.map((span) => span.name)).toEqual(['POST /files (renamed)', 'GET /größen/:id']);
    expect(decodedResource.attributes[0]).toEqual({ key: 'service.name', value: { stringValue: 'auth' } });
  });

  it('names and attributes every span by its own method, route and status, however many routes repeat or differ', () => {
    const encoder = new ProtobufSpanEncoder('@platform/telemetry');
    // Repeats of a route with other methods and statuses, a renamed span, no route; then more
    // distinct routes than the encoder keeps encoded pieces for.
    const cases: Array<Pick<FinishedServerSpan, 'method' | 'route' | 'statusCode' | 'name'>> = [
      { method: 'GET', route: '/things/:id', statusCode: 200 },
      { method: 'GET', route: '/things/:id', statusCode: 404 },
      { method: 'DELETE', route: '/things/:id', statusCode: 204 },
      { method: 'GET', route: '/things/:id', statusCode: 200, name: 'renamed' },
      { method: 'GET', route: undefined, statusCode: 404 },
      { method: 'GET', route: '/things/:id', statusCode: 200 },
      ...Array.from({ length: 1100 }, (_, i) => ({ method: 'PUT', route: `/mounted/${i}/things`, statusCode: 200 + (i % 3) })),
    ];
    for (const [i, span] of cases.entries()) encoder.add({ ...sampled, ...span, target: `/things/${i}?q=1` });
    const spans = decodeProtobuf(Buffer.from(encoder.request(resource, encoder.takeBatch()))).resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toHaveLength(cases.length);
    const attribute = (span: (typeof spans)[number], key: string) => span.attributes.find((kv: { key: string }) => kv.key === key)?.value;
    for (const [i, span] of spans.entries()) {
      const expected = cases[i]!;
      expect(span.name).toBe(expected.name ?? (expected.route ? `${expected.method} ${expected.route}` : expected.method));
      expect(span.kind).toBe(2);
      expect(span.attributes.map((kv: { key: string }) => kv.key)).toEqual([
        'http.request.method',
        'url.path',
        'url.scheme',
        ...(expected.route ? ['http.route'] : []),
        'http.response.status_code',
      ]);
      expect(attribute(span, 'http.request.method')).toEqual({ stringValue: expected.method });
      expect(attribute(span, 'url.path')).toEqual({ stringValue: `/things/${i}` });
      expect(attribute(span, 'http.route')).toEqual(expected.route ? { stringValue: expected.route } : undefined);
      expect(attribute(span, 'http.response.status_code')).toEqual({ intValue: String(expected.statusCode) });
    }
  });

  it('writes each span of a repeated route with its own ids, times, parent, path and flags', () => {
    const encoder = new ProtobufSpanEncoder('@platform/telemetry');
    // Paths repeated and changed, so that a route's laid-out spans keep and drop their path.
    const targets = ['/things/7', '/things/7', '/things/7', '/things/8', '/things/7', '/things/8', '/things/8', '/things/8?page=2', '/things/7'];
    const written: FinishedServerSpan[] = targets.flatMap((target, i) =>
      [undefined, randomBytes(8).toString('hex')].map((parentSpanId) => ({
        ...sampled,
        ...idWordsOfHex(randomBytes(16).toString('hex'), randomBytes(8).toString('hex')),
        parentSpanId,
        startMs: sampled.startMs + i,
        endMs: sampled.endMs + i + 0.25,
        target,
        statusCode: i % 3 ? 200 : 404,
      })),
    );
    for (const span of written) encoder.add(span);
    const body = Buffer.from(encoder.request(resource, encoder.takeBatch()));
    const nanos = (ms: number) => String(BigInt(Math.round(ms * 1000)) * 1000n);
    expect(decodeProtobuf(body).resourceSpans[0].scopeSpans[0].spans).toEqual(
      written.map((span) => ({
        traceId: hexOfWords(span.traceId0, span.traceId1, span.traceId2, span.traceId3),
        spanId: hexOfWords(span.spanId0, span.spanId1),
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        name: 'GET /things/:id',
        kind: 2,
        startTimeUnixNano: nanos(span.startMs),
        endTimeUnixNano: nanos(span.endMs),
        attributes: [
          { key: 'http.request.method', value: { stringValue: 'GET' } },
          { key: 'url.path', value: { stringValue: span.target.replace(/\?.*/, '') } },
          { key: 'url.scheme', value: { stringValue: 'http' } },
          { key: 'http.route', value: { stringValue: '/things/:id' } },
          { key: 'http.response.status_code', value: { intValue: String(span.statusCode) } },
        ],
        events: [],
        links: [],
      })),
    );
    // Span.flags, found in the bytes: each span's own (a remote parent or none).
    const occurrences = (bytes: Buffer) => {
      let count = 0;
      for (let at = body.indexOf(bytes); at >= 0; at = body.indexOf(bytes, at + 1)) count++;
      return count;
    };
    expect(occurrences(Buffer.from([0x85, 0x01, 0x01, 0x01, 0, 0]))).toBe(targets.length);
    expect(occurrences(Buffer.from([0x85, 0x01, 0x01, 0x03, 0, 0]))).toBe(targets.length);
  });

  it('writes the same spans as OTLP/JSON', () => {
    const encoder = new JsonSpanEncoder('@platform/telemetry');
    encoder.add(sampled);
    encoder.add(failed);
    const request = JSON.parse(Buffer.from(encoder.request(resource, encoder.takeBatch())).toString());
    const [{ resource: decodedResource, scopeSpans }] = request.resourceSpans;
    expect(decodedResource.attributes).toContainEqual({ key: 'process.pid', value: { intValue: 4242 } });
    expect(scopeSpans[0].scope).toEqual({ name: '@platform/telemetry' });
    const [first, second] = scopeSpans[0].spans;
    expect(first).toMatchObject({ traceId, spanId, kind: 2, startTimeUnixNano: '1795746846025123000', flags: 0x101 });
    expect(first.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 200 } });
    expect(second).toMatchObject({
      name: 'POST /files (renamed)',
      parentSpanId: failed.parentSpanId,
      traceState: 'vendor=opaque',
      status: { code: 2, message: 'upstream down' },
      flags: 0x301,
    });
    expect(second.attributes).toContainEqual({ key: 'file.count', value: { intValue: 3 } });
    expect(JSON.parse(Buffer.from(encoder.request(resource, encoder.takeBatch())).toString()).resourceSpans[0].scopeSpans[0].spans).toEqual([]);
  });
});
