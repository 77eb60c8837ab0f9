import type { Pricing } from '@platform/contracts';
import { modelCallOf, type ModelCall } from './gen-ai';
import type { AnyValue, KeyValue, OtlpRequest, OtlpSpan } from './otlp.codec';
import { idToHex } from './otlp.codec';

/** One span as stored: ids in hex, times in nanoseconds, attributes keyed by name with OTLP-typed values. */
export interface SpanRow {
  project: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  statusCode: number;
  statusMessage: string | null;
  startUnixNano: bigint;
  endUnixNano: bigint;
  traceState: string | null;
  flags: number;
  /** JSON text of each jsonb column (already checked for NUL characters). */
  attributes: string;
  events: string;
  links: string;
  resource: string;
  scope: string;
  dropped: string | null;
  /** Session, user and model call, read from the attributes (gen-ai.ts). */
  call: ModelCall;
}

export interface EmbeddingRow {
  project: string;
  traceId: string;
  spanId: string;
  position: number;
  model: string | null;
  text: string | null;
  vector: number[];
  startUnixNano: bigint;
}

export interface ConvertedBatch {
  spans: SpanRow[];
  embeddings: EmbeddingRow[];
  rejected: number;
  /** The first few reasons, for `partialSuccess.errorMessage`. */
  reasons: string[];
}

export interface ConvertOptions {
  /** Spans starting before this (ns since epoch) are refused: retention would drop them anyway. */
  oldestNano: bigint;
  /** Spans starting after this are refused (a clock far ahead would create far-future partitions). */
  newestNano: bigint;
  maxVectorSize?: number;
  /** The model price table that costs model calls (none: costs stay unknown). */
  pricing?: Pricing;
}

export const PROJECT_ATTRIBUTE = 'openinference.project.name';
const MAX_INT64 = (1n << 63n) - 1n;
const HEX_TRACE_ID = /^[0-9a-f]{32}$/;
const HEX_SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const EMBEDDING_VECTOR = /^embedding\.embeddings\.(\d+)\.embedding\.vector$/;

/** OTLP attributes (a list of key/value) as an object keyed by name; the typed values are kept. */
export function attributeMap(list: KeyValue[] | undefined): Record<string, AnyValue> {
  const map: Record<string, AnyValue> = {};
  for (const { key, value } of list ?? []) map[key] = value ?? {};
  return map;
}

/** An AnyValue as plain JSON (for reading): int64 as a number when it is safe, else a string. */
export function plainValue(value: AnyValue | undefined): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : value.intValue;
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  if (value.kvlistValue !== undefined) return Object.fromEntries((value.kvlistValue.values ?? []).map(({ key, value: item }) => [key, plainValue(item)]));
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}

export function plainAttributes(map: Record<string, AnyValue> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, plainValue(value)]));
}

function nano(value: string | undefined): bigint {
  if (!value) return 0n;
  try {
    return BigInt(value);
  } catch {
    return -1n;
  }
}

/** The project of a resource: `openinference.project.name`, else `service.name`, else `default`. */
export function projectOf(resource: Record<string, AnyValue>): string {
  const named = resource[PROJECT_ATTRIBUTE]?.stringValue ?? resource['service.name']?.stringValue;
  return named && named.length > 0 ? named : 'default';
}

function spanProblem(
  span: OtlpSpan,
  traceId: string,
  spanId: string,
  parentSpanId: string,
  start: bigint,
  end: bigint,
  options: ConvertOptions,
): string | undefined {
  if (!HEX_TRACE_ID.test(traceId) || traceId === ZERO_TRACE) return 'traceId must be 16 bytes and not all zero';
  if (!HEX_SPAN_ID.test(spanId) || spanId === ZERO_SPAN) return 'spanId must be 8 bytes and not all zero';
  if (parentSpanId !== '' && !HEX_SPAN_ID.test(parentSpanId)) return 'parentSpanId must be empty or 8 bytes';
  if (!span.name) return 'name is required';
  if (start <= 0n || start > MAX_INT64) return 'startTimeUnixNano is missing or out of range';
  if (end < start || end > MAX_INT64) return 'endTimeUnixNano must not precede startTimeUnixNano';
  if (start < options.oldestNano) return 'startTimeUnixNano is older than the retention period';
  if (start > options.newestNano) return 'startTimeUnixNano is too far in the future';
  return undefined;
}

function extractEmbeddings(
  project: string,
  traceId: string,
  spanId: string,
  start: bigint,
  attributes: Record<string, AnyValue>,
  maxVectorSize: number,
): EmbeddingRow[] {
  const found: EmbeddingRow[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const match = EMBEDDING_VECTOR.exec(key);
    if (!match || !value.arrayValue) continue;
    const vector = (value.arrayValue.values ?? []).map((item) => item.doubleValue ?? (item.intValue !== undefined ? Number(item.intValue) : Number.NaN));
    if (vector.length === 0 || vector.length > maxVectorSize || vector.some((item) => !Number.isFinite(item))) continue;
    const position = Number(match[1]);
    found.push({
      project,
      traceId,
      spanId,
      position,
      model: attributes['embedding.model_name']?.stringValue ?? null,
      text: attributes[`embedding.embeddings.${position}.embedding.text`]?.stringValue ?? null,
      vector,
      startUnixNano: start,
    });
  }
  return found;
}

/**
 * Turns a decoded request into rows. Spans that fail validation are counted and left out; the
 * rest are kept (OTLP partial success). A span whose text holds NUL characters (which Postgres
 * cannot store) is refused rather than altered.
 */
export function convertRequest(request: OtlpRequest, options: ConvertOptions): ConvertedBatch {
  const batch: ConvertedBatch = { spans: [], embeddings: [], rejected: 0, reasons: [] };
  const reject = (reason: string) => {
    batch.rejected++;
    if (batch.reasons.length < 5 && !batch.reasons.includes(reason)) batch.reasons.push(reason);
  };
  const maxVectorSize = options.maxVectorSize ?? 8192;
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resourceAttributes = attributeMap(resourceSpans.resource?.attributes);
    const project = projectOf(resourceAttributes);
    const resource = JSON.stringify({
      attributes: resourceAttributes,
      ...(resourceSpans.resource?.droppedAttributesCount && { droppedAttributesCount: resourceSpans.resource.droppedAttributesCount }),
      ...(resourceSpans.schemaUrl && { schemaUrl: resourceSpans.schemaUrl }),
    });
    const badProject = project.length > 256 || CONTROL.test(project);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scopeObject = scopeSpans.scope ?? {};
      const scope = JSON.stringify({
        ...(scopeObject.name && { name: scopeObject.name }),
        ...(scopeObject.version && { version: scopeObject.version }),
        ...(scopeObject.attributes?.length && { attributes: attributeMap(scopeObject.attributes) }),
        ...(scopeObject.droppedAttributesCount && { droppedAttributesCount: scopeObject.droppedAttributesCount }),
        ...(scopeSpans.schemaUrl && { schemaUrl: scopeSpans.schemaUrl }),
      });
      for (const span of scopeSpans.spans ?? []) {
        if (badProject) {
          reject('the project name (openinference.project.name or service.name) must be at most 256 characters without control characters');
          continue;
        }
        const traceId = idToHex(span.traceId);
        const spanId = idToHex(span.spanId);
        const parentSpanId = idToHex(span.parentSpanId);
        const start = nano(span.startTimeUnixNano);
        const end = nano(span.endTimeUnixNano);
        const problem = spanProblem(span, traceId, spanId, parentSpanId, start, end, options);
        if (problem) {
          reject(problem);
          continue;
        }
        const attributes = attributeMap(span.attributes);
        const events = (span.events ?? []).map((event) => ({
          timeUnixNano: event.timeUnixNano ?? '0',
          name: event.name ?? '',
          attributes: attributeMap(event.attributes),
          ...(event.droppedAttributesCount && { droppedAttributesCount: event.droppedAttributesCount }),
        }));
        const links = (span.links ?? []).map((link) => ({
          traceId: idToHex(link.traceId),
          spanId: idToHex(link.spanId),
          ...(link.traceState && { traceState: link.traceState }),
          attributes: attributeMap(link.attributes),
          ...(link.droppedAttributesCount && { droppedAttributesCount: link.droppedAttributesCount }),
          ...(link.flags && { flags: link.flags }),
        }));
        const dropped =
          span.droppedAttributesCount || span.droppedEventsCount || span.droppedLinksCount
            ? JSON.stringify({ attributes: span.droppedAttributesCount ?? 0, events: span.droppedEventsCount ?? 0, links: span.droppedLinksCount ?? 0 })
            : null;
        const row: SpanRow = {
          project,
          traceId,
          spanId,
          parentSpanId: parentSpanId || null,
          name: span.name!,
          kind: span.kind ?? 0,
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message || null,
          startUnixNano: start,
          endUnixNano: end,
          traceState: span.traceState || null,
          flags: span.flags ?? 0,
          attributes: JSON.stringify(attributes),
          events: JSON.stringify(events),
          links: JSON.stringify(links),
          resource,
          scope,
          dropped,
          call: modelCallOf(attributes, resourceAttributes, options.pricing),
        };
        if (hasNul(row)) {
          reject('span text must not contain NUL characters');
          continue;
        }
        if (row.kind < 0 || row.kind > 5 || row.statusCode < 0 || row.statusCode > 2) {
          reject('kind or status code is not a known enum value');
          continue;
        }
        batch.spans.push(row);
        batch.embeddings.push(...extractEmbeddings(project, traceId, spanId, start, attributes, maxVectorSize));
      }
    }
  }
  return batch;
}

function hasNul(row: SpanRow): boolean {
  const texts = [row.name, row.statusMessage, row.traceState, row.project, row.call.sessionId, row.call.userId, row.call.model, row.call.modelSystem];
  if (texts.some((text) => text?.includes('\u0000'))) return true;
  return [row.attributes, row.events, row.links, row.resource, row.scope].some((json) => json.includes('\\u0000'));
}
