import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { hexOfWords, LITTLE_ENDIAN_WORDS, type SpanIdWords } from './span-ids';

/** A request's SERVER span once its response has closed: what an OTLP span of it carries. */
export interface FinishedServerSpan extends SpanIdWords {
  /** The caller's span (hex), when the request came with a trace context. */
  parentSpanId?: string;
  traceState?: string;
  /** Start and end, in milliseconds since the epoch (fractions are kept). */
  startMs: number;
  endMs: number;
  method: string;
  /** The request target as it came: its path is url.path (the query is left out). */
  target: string;
  /** The route matched, which names the span with the method (else the method alone). */
  route?: string;
  /** A name the handler gave the span, instead of the one made from method and route. */
  name?: string;
  /** The response's HTTP status. */
  statusCode: number;
  /** The span's status: unset, ok or error (OpenTelemetry's SpanStatusCode, OTLP's numbering too). */
  status: 0 | 1 | 2;
  statusMessage?: string;
  /** Attributes the handler set, beyond the HTTP ones. */
  attributes?: Attributes;
}

/**
 * Builds OTLP export requests from server spans: each span is encoded as it is added, the batch
 * taken as one encoded piece, and the resource encoded once.
 */
export interface OtlpSpanEncoder {
  readonly contentType: string;
  /** Spans added since the last request was taken. */
  readonly spans: number;
  add(span: FinishedServerSpan): void;
  /** The spans added since the last call, encoded; the encoder starts a new batch. */
  takeBatch(): EncodedSpans;
  /** A batch as one ExportTraceServiceRequest body, from the resource its spans came from. */
  request(resource: Attributes, batch: EncodedSpans): Uint8Array;
}

/** A batch of encoded spans, opaque to all but the encoder that made it. */
export type EncodedSpans = Buffer | string;

const SERVER = 2; // SPAN_KIND_SERVER
// Span flags: the W3C flags, and whether the parent was remote (known, so bit 8 is always set).
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;
const SAMPLED = 1;

function flagsOf(span: FinishedServerSpan): number {
  return flagsFor(!!span.parentSpanId);
}

function flagsFor(remoteParent: boolean): number {
  return SAMPLED | FLAGS_HAS_IS_REMOTE | (remoteParent ? FLAGS_IS_REMOTE : 0);
}

/** A request target's path: what precedes its query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/** Milliseconds since the epoch as OTLP/JSON's nanoseconds (microsecond precision, as measured). */
function nanos(ms: number): string {
  return String(BigInt(Math.round(ms * 1000)) * 1000n);
}

/** Each hex digit's value, by character code. */
const HEX = new Uint8Array(128);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;

// Bytes written by hand rather than by Buffer's writeInt32LE and the like: those are shared by every
// caller in the process, so their element accesses are megamorphic and cost several times more.

/** A word's four bytes at `at`, in the order the platform stores them (span-ids.ts). */
function putWord(buf: Buffer, at: number, w: number): void {
  if (LITTLE_ENDIAN_WORDS) {
    buf[at] = w;
    buf[at + 1] = w >>> 8;
    buf[at + 2] = w >>> 16;
    buf[at + 3] = w >>> 24;
  } else {
    buf[at] = w >>> 24;
    buf[at + 1] = w >>> 16;
    buf[at + 2] = w >>> 8;
    buf[at + 3] = w;
  }
}

/** An unsigned 32-bit value (a double below 2^32 too), little-endian. */
function putUint32LE(buf: Buffer, at: number, value: number): void {
  buf[at] = value;
  buf[at + 1] = value >>> 8;
  buf[at + 2] = value >>> 16;
  buf[at + 3] = value >>> 24;
}

/** Milliseconds since the epoch as fixed64 nanoseconds, microsecond-exact, without a BigInt. */
function putNanos(buf: Buffer, at: number, ms: number): void {
  const micros = Math.round(ms * 1000);
  const microsHigh = Math.floor(micros / 2 ** 32);
  const lowNanos = (micros - microsHigh * 2 ** 32) * 1000;
  const carry = Math.floor(lowNanos / 2 ** 32);
  putUint32LE(buf, at, lowNanos - carry * 2 ** 32);
  putUint32LE(buf, at + 4, microsHigh * 1000 + carry);
}

/** A hex id's bytes. */
function putHex(buf: Buffer, at: number, hex: string): void {
  for (let i = 0; i < hex.length >>> 1; i++) buf[at + i] = (HEX[hex.charCodeAt(2 * i)]! << 4) | HEX[hex.charCodeAt(2 * i + 1)]!;
}

/** The part of protobuf's wire format OTLP spans need, written front to back into a growing buffer. */
class ProtoWriter {
  buf: Buffer;
  pos = 0;

  /** `size`: the bytes to start with (it grows as needed). */
  constructor(size = 256) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.pos + bytes));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(value: number): void {
    this.room(10);
    while (value > 0x7f) {
      this.buf[this.pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buf[this.pos++] = value;
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, value: string): void {
    const bytes = utf8Length(value);
    this.tag(field, 2);
    this.varint(bytes);
    this.text(value, bytes);
  }

  /** A string's bytes, `bytes` long in UTF-8. ASCII is copied by hand: a native call costs more for a short string. */
  text(value: string, bytes: number): void {
    this.room(bytes);
    if (bytes === value.length) {
      const buf = this.buf;
      for (let i = 0; i < bytes; i++) buf[this.pos + i] = value.charCodeAt(i);
      this.pos += bytes;
    } else this.pos += this.buf.write(value, this.pos, bytes, 'utf8');
  }

  /** Hex ids as bytes. */
  hex(field: number, value: string): void {
    const length = value.length >>> 1;
    this.tag(field, 2);
    this.varint(length);
    this.room(length);
    putHex(this.buf, this.pos, value);
    this.pos += length;
  }

  /** An id given as words (span-ids.ts): two for a span id, four for a trace id. */
  idWords(field: number, w0: number, w1: number, w2?: number, w3?: number): void {
    this.tag(field, 2);
    this.varint(w2 === undefined ? 8 : 16);
    this.room(16);
    this.word(w0);
    this.word(w1);
    if (w2 !== undefined) {
      this.word(w2);
      this.word(w3!);
    }
  }

  private word(w: number): void {
    putWord(this.buf, this.pos, w);
    this.pos += 4;
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.raw(value);
  }

  /** Milliseconds since the epoch as fixed64 nanoseconds. */
  timestamp(field: number, ms: number): void {
    this.tag(field, 1);
    this.room(8);
    putNanos(this.buf, this.pos, ms);
    this.pos += 8;
  }

  fixed32(field: number, value: number): void {
    this.tag(field, 5);
    this.room(4);
    this.pos = this.buf.writeUInt32LE(value, this.pos);
  }

  double(field: number, value: number): void {
    this.tag(field, 1);
    this.room(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  /** Bytes already encoded. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /**
   * Room for the length of a message about to be written here, which fillLength(at) writes once
   * it is known: two bytes, enough for a span under 16 KB (a longer one is moved to fit its length;
   * a length under 128 takes the two bytes too, a padded varint that protobuf readers accept).
   */
  reserveLength(): number {
    this.room(2);
    this.pos += 2;
    return this.pos;
  }

  /** Writes the length of the message written since reserveLength() returned `at`. */
  fillLength(at: number): void {
    const length = this.pos - at;
    if (length < 0x4000) {
      this.buf[at - 2] = (length & 0x7f) | 0x80;
      this.buf[at - 1] = length >>> 7;
      return;
    }
    const size = varintSize(length);
    this.room(size - 2);
    this.buf.copyWithin(at - 2 + size, at, this.pos);
    this.pos = at - 2;
    this.varint(length);
    this.pos += length;
  }

  /** A nested message, written by `write` into a writer of its own. */
  message(field: number, write: (writer: ProtoWriter) => void): void {
    const nested = new ProtoWriter();
    write(nested);
    this.bytes(field, nested.written());
  }

  written(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** What was written, copied out; the writer starts again empty. */
  take(): Buffer {
    const copy = Buffer.from(this.written());
    this.pos = 0;
    return copy;
  }
}

// KeyValue { key = 1; value = 2 } with AnyValue { string = 1; bool = 2; int = 3; double = 4; array = 5 }.
function writeAnyValue(writer: ProtoWriter, value: AttributeValue): void {
  if (typeof value === 'string') writer.string(1, value);
  else if (typeof value === 'boolean') {
    writer.tag(2, 0);
    writer.varint(value ? 1 : 0);
  } else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    writer.tag(3, 0);
    writer.varint(value);
  } else if (typeof value === 'number') writer.double(4, value);
  else if (Array.isArray(value)) {
    writer.message(5, (array) => {
      for (const item of value) if (item !== null && item !== undefined) array.message(1, (any) => writeAnyValue(any, item));
    });
  }
}

function writeAttributes(writer: ProtoWriter, field: number, attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    writer.message(field, (keyValue) => {
      keyValue.string(1, key);
      keyValue.message(2, (any) => writeAnyValue(any, value));
    });
  }
}

/** What `write` writes, as bytes of its own. */
function encoded(write: (writer: ProtoWriter) => void): Buffer {
  const writer = new ProtoWriter();
  write(writer);
  return writer.take();
}

/** An attribute key as KeyValue's first field (key = 1), encoded once. */
function encodedKey(key: string): Buffer {
  return encoded((writer) => writer.string(1, key));
}
const METHOD = encodedKey('http.request.method');
const PATH = encodedKey('url.path');
const ROUTE = encodedKey('http.route');
const STATUS_CODE = encodedKey('http.response.status_code');
/** url.scheme = "http": the whole attribute (Span.attributes = 9), encoded once. */
const SCHEME_HTTP = encoded((writer) => writeStringAttribute(writer, encodedKey('url.scheme'), 'http'));

/**
 * A string attribute of a span (Span.attributes = 9), written without a nested writer: its sizes
 * are known up front. KeyValue { key = 1; value = 2 { string_value = 1 } }.
 */
function writeStringAttribute(writer: ProtoWriter, key: Buffer, value: string): void {
  const valueBytes = utf8Length(value);
  writeAttributeHead(writer, key, 1 + varintSize(valueBytes) + valueBytes);
  writer.tag(1, 2);
  writer.varint(valueBytes);
  writer.text(value, valueBytes);
}

/** An integer attribute: KeyValue { key = 1; value = 2 { int_value = 3 } }. */
function writeIntAttribute(writer: ProtoWriter, key: Buffer, value: number): void {
  writeAttributeHead(writer, key, 1 + varintSize(value));
  writer.tag(3, 0);
  writer.varint(value);
}

/** A KeyValue's tag, length and key, and the tag and length of its AnyValue (`any` bytes long). */
function writeAttributeHead(writer: ProtoWriter, key: Buffer, any: number): void {
  writer.tag(9, 2);
  writer.varint(key.length + 1 + varintSize(any) + any);
  writer.raw(key);
  writer.tag(2, 2);
  writer.varint(any);
}

/** A string's length in UTF-8: its length when ASCII, found without a native call. */
function utf8Length(value: string): number {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) >= 0x80) return Buffer.byteLength(value);
  return value.length;
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

/**
 * What spans of one method and route share, encoded once: a service serves few routes, and a
 * span then costs a copy of these bytes instead of encoding each string again.
 */
interface RoutePieces {
  /** Span.name (`${method} ${route}`, or the method alone) and Span.kind. */
  head: Buffer;
  /** The http.request.method attribute. */
  method: Buffer;
  /** By status code: the url.scheme, http.route and http.response.status_code attributes. */
  tails: Buffer[];
  /** Whole spans laid out, by status code: of new traces, and of continued ones. */
  frames: [SpanFrame[], SpanFrame[]];
}

/**
 * The bytes of a span with nothing of its own (no name, attributes, status or trace state), laid
 * out once per route, status and kind of parent: such a span, most of them, is then copied and has
 * its ids and times written into place.
 */
interface SpanFrame {
  /** The ScopeSpans.spans tag, room for the length, ids, times, parent id, name, kind and method. */
  head: Buffer;
  /** The url.path attribute of `path`, a path seen twice in a row (a route without parameters). */
  pathAttribute?: Buffer;
  path?: string;
  lastPath?: string;
  /** url.scheme, http.route and http.response.status_code, then the flags. */
  tail: Buffer;
}
// Where a frame's head holds what each span writes into it (tags and sizes precede each).
const FRAME_LENGTH = 3;
const FRAME_TRACE_ID = 5;
const FRAME_SPAN_ID = 23;
const FRAME_START = 32;
const FRAME_END = 41;
const FRAME_PARENT_ID = 51;

function frameOf(pieces: RoutePieces, route: string | undefined, statusCode: number, parent: boolean): SpanFrame {
  const head = encoded((writer) => {
    writer.tag(2, 2);
    writer.raw(Buffer.alloc(2)); // the length
    writer.idWords(1, 0, 0, 0, 0);
    writer.idWords(2, 0, 0);
    writer.timestamp(7, 0);
    writer.timestamp(8, 0);
    if (parent) writer.hex(4, '0000000000000000');
    writer.raw(pieces.head);
    writer.raw(pieces.method);
  });
  const tail = encoded((writer) => {
    writeTail(writer, route, statusCode);
    writer.fixed32(16, flagsFor(parent));
  });
  return { head, tail };
}
/** Bounds on what is cached, should routes hold values (a router mounted at a path with parameters). */
const MAX_CACHED_METHODS = 64;
const MAX_CACHED_ROUTES = 1024;

function writeKind(writer: ProtoWriter): void {
  writer.tag(6, 0);
  writer.varint(SERVER);
}

/** The name, `${method} ${route}` or the method alone, written from its parts, and the kind. */
function writeHead(writer: ProtoWriter, method: string, route: string | undefined): void {
  const methodBytes = utf8Length(method);
  const routeBytes = route ? utf8Length(route) : 0;
  writer.tag(5, 2);
  writer.varint(route ? methodBytes + 1 + routeBytes : methodBytes);
  writer.text(method, methodBytes);
  if (route) {
    writer.text(' ', 1);
    writer.text(route, routeBytes);
  }
  writeKind(writer);
}

/** The attributes after url.path: url.scheme, http.route if any, http.response.status_code. */
function writeTail(writer: ProtoWriter, route: string | undefined, statusCode: number): void {
  writer.raw(SCHEME_HTTP);
  if (route) writeStringAttribute(writer, ROUTE, route);
  writeIntAttribute(writer, STATUS_CODE, statusCode);
}

/** OTLP/HTTP protobuf: ExportTraceServiceRequest { resource_spans = 1 { resource = 1; scope_spans = 2 { scope = 1; spans = 2 } } }. */
export class ProtobufSpanEncoder implements OtlpSpanEncoder {
  readonly contentType = 'application/x-protobuf';
  spans = 0;
  /** The batch: each span as a ScopeSpans.spans field. */
  private readonly batch = new ProtoWriter(64 * 1024);
  /** Pieces of spans by method, then route (an empty one for spans without). */
  private readonly routes = new Map<string, Map<string, RoutePieces>>();
  private cachedRoutes = 0;
  private resource?: Buffer;
  private readonly scope: Buffer;

  constructor(scopeName: string) {
    this.scope = encoded((scope) => scope.string(1, scopeName));
  }

  add(span: FinishedServerSpan): void {
    const pieces = this.piecesOf(span.method, span.route ?? '');
    if (pieces && span.name === undefined && !span.attributes && span.status === 0 && !span.traceState && span.statusCode >= 0 && span.statusCode < 1000) {
      this.addFramed(span, pieces);
    } else this.addEncoded(span, pieces);
    this.spans++;
  }

  /** A span with nothing of its own, from its route's frame. */
  private addFramed(span: FinishedServerSpan, pieces: RoutePieces): void {
    const parent = span.parentSpanId ? 1 : 0;
    const frame = (pieces.frames[parent][span.statusCode] ??= frameOf(pieces, span.route, span.statusCode, parent === 1));
    const body = this.batch;
    const at = body.pos;
    body.raw(frame.head);
    const buf = body.buf;
    putWord(buf, at + FRAME_TRACE_ID, span.traceId0);
    putWord(buf, at + FRAME_TRACE_ID + 4, span.traceId1);
    putWord(buf, at + FRAME_TRACE_ID + 8, span.traceId2);
    putWord(buf, at + FRAME_TRACE_ID + 12, span.traceId3);
    putWord(buf, at + FRAME_SPAN_ID, span.spanId0);
    putWord(buf, at + FRAME_SPAN_ID + 4, span.spanId1);
    putNanos(buf, at + FRAME_START, span.startMs);
    putNanos(buf, at + FRAME_END, span.endMs);
    if (parent) putHex(buf, at + FRAME_PARENT_ID, span.parentSpanId!);
    const path = pathOf(span.target);
    if (path === frame.path) body.raw(frame.pathAttribute!);
    else {
      const from = body.pos;
      writeStringAttribute(body, PATH, path);
      if (path === frame.lastPath) {
        frame.path = path;
        frame.pathAttribute = Buffer.from(body.buf.subarray(from, body.pos));
      }
      frame.lastPath = path;
    }
    body.raw(frame.tail);
    body.fillLength(at + FRAME_LENGTH);
  }

  /** Any other span, field by field (with its route's pieces, if cached). */
  private addEncoded(span: FinishedServerSpan, pieces: RoutePieces | undefined): void {
    const body = this.batch;
    body.tag(2, 2);
    const start = body.reserveLength();
    body.idWords(1, span.traceId0, span.traceId1, span.traceId2, span.traceId3);
    body.idWords(2, span.spanId0, span.spanId1);
    if (span.traceState) body.string(3, span.traceState);
    if (span.parentSpanId) body.hex(4, span.parentSpanId);
    if (span.name !== undefined) {
      body.string(5, span.name);
      writeKind(body);
    } else if (pieces) body.raw(pieces.head);
    else writeHead(body, span.method, span.route);
    body.timestamp(7, span.startMs);
    body.timestamp(8, span.endMs);
    if (pieces) body.raw(pieces.method);
    else writeStringAttribute(body, METHOD, span.method);
    writeStringAttribute(body, PATH, pathOf(span.target));
    if (pieces && span.statusCode >= 0 && span.statusCode < 1000) {
      body.raw((pieces.tails[span.statusCode] ??= encoded((writer) => writeTail(writer, span.route, span.statusCode))));
    } else writeTail(body, span.route, span.statusCode);
    if (span.attributes) writeAttributes(body, 9, span.attributes);
    if (span.status !== 0) {
      body.message(15, (status) => {
        if (span.statusMessage) status.string(2, span.statusMessage); // Status { message = 2; code = 3 }
        status.tag(3, 0);
        status.varint(span.status);
      });
    }
    body.fixed32(16, flagsOf(span));
    body.fillLength(start);
  }

  /** The pieces of spans with this method and route, encoded once; none once the cache is full. */
  private piecesOf(method: string, route: string): RoutePieces | undefined {
    let byRoute = this.routes.get(method);
    if (!byRoute) {
      if (this.routes.size >= MAX_CACHED_METHODS) return undefined;
      this.routes.set(method, (byRoute = new Map()));
    }
    let pieces = byRoute.get(route);
    if (!pieces && this.cachedRoutes < MAX_CACHED_ROUTES) {
      pieces = {
        head: encoded((writer) => writeHead(writer, method, route || undefined)),
        method: encoded((writer) => writeStringAttribute(writer, METHOD, method)),
        tails: [],
        frames: [[], []],
      };
      byRoute.set(route, pieces);
      this.cachedRoutes++;
    }
    return pieces;
  }

  takeBatch(): Buffer {
    this.spans = 0;
    return this.batch.take();
  }

  request(resource: Attributes, spans: Buffer): Uint8Array {
    this.resource ??= encodeResource(resource);
    const scopeSpans = new ProtoWriter();
    scopeSpans.bytes(1, this.scope);
    const resourceSpans = new ProtoWriter();
    resourceSpans.bytes(1, this.resource);
    resourceSpans.tag(2, 2);
    resourceSpans.varint(scopeSpans.pos + spans.length);
    const request = new ProtoWriter();
    request.tag(1, 2);
    request.varint(resourceSpans.pos + scopeSpans.pos + spans.length);
    return Buffer.concat([request.written(), resourceSpans.written(), scopeSpans.written(), spans]);
  }
}

function encodeResource(attributes: Attributes): Buffer {
  return encoded((resource) => writeAttributes(resource, 1, attributes));
}

/** OTLP/HTTP JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): ids in hex, 64-bit integers as strings. */
export class JsonSpanEncoder implements OtlpSpanEncoder {
  readonly contentType = 'application/json';
  private batch: string[] = [];

  constructor(private readonly scopeName: string) {}

  get spans(): number {
    return this.batch.length;
  }

  add(span: FinishedServerSpan): void {
    const attribute = (key: string, value: AttributeValue) => ({ key, value: jsonAnyValue(value) });
    this.batch.push(
      JSON.stringify({
        traceId: hexOfWords(span.traceId0, span.traceId1, span.traceId2, span.traceId3),
        spanId: hexOfWords(span.spanId0, span.spanId1),
        traceState: span.traceState,
        parentSpanId: span.parentSpanId,
        name: span.name ?? (span.route ? `${span.method} ${span.route}` : span.method),
        kind: SERVER,
        startTimeUnixNano: nanos(span.startMs),
        endTimeUnixNano: nanos(span.endMs),
        attributes: [
          attribute('http.request.method', span.method),
          attribute('url.path', pathOf(span.target)),
          attribute('url.scheme', 'http'),
          ...(span.route ? [attribute('http.route', span.route)] : []),
          attribute('http.response.status_code', span.statusCode),
          ...jsonAttributes(span.attributes ?? {}),
        ],
        status: span.status === 0 ? {} : { code: span.status, message: span.statusMessage },
        flags: flagsOf(span),
      }),
    );
  }

  takeBatch(): string {
    const spans = this.batch.join(',');
    this.batch = [];
    return spans;
  }

  request(resource: Attributes, spans: string): Uint8Array {
    const head = JSON.stringify({ resource: { attributes: jsonAttributes(resource) }, scopeSpans: [{ scope: { name: this.scopeName }, spans: [] }] });
    // The spans were serialized as they were added: spliced into the empty spans array.
    return Buffer.from(`{"resourceSpans":[${head.slice(0, -4)}${spans}]}]}]}`);
  }
}

function jsonAttributes(attributes: Attributes): Array<{ key: string; value: Record<string, unknown> }> {
  return Object.entries(attributes)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => ({ key, value: jsonAnyValue(value!) }));
}

// Integers as the protobuf form writes them: non-negative safe integers; any other number a double.
function jsonAnyValue(value: AttributeValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? { intValue: value } : { doubleValue: value };
  return { arrayValue: { values: value.filter((item) => item !== null && item !== undefined).map((item) => jsonAnyValue(item!)) } };
}
