import type protobuf from 'protobufjs';
// A protobufjs static module generated from the official opentelemetry-proto definitions, as
// @opentelemetry/otlp-transformer 0.57 ships it (installed under the alias otlp-proto-root: the
// 0.223 line this platform runs on ships only its own encoder).
import otlpRoot from 'otlp-proto-root/build/src/generated/root';

interface StaticType {
  decode(reader: Uint8Array): protobuf.Message;
  encode(message: object): protobuf.Writer;
  fromObject(object: Record<string, unknown>): protobuf.Message;
  toObject(message: protobuf.Message, options?: protobuf.IConversionOptions): Record<string, unknown>;
}

const v1 = (otlpRoot as unknown as { opentelemetry: { proto: { collector: { trace: { v1: Record<string, StaticType> } } } } }).opentelemetry.proto.collector
  .trace.v1;
export const ExportTraceServiceRequest = v1.ExportTraceServiceRequest;
export const ExportTraceServiceResponse = v1.ExportTraceServiceResponse;

/** protobufjs's plain-object form: 64-bit integers as decimal strings, bytes as base64, enums as numbers. */
const OBJECT_OPTIONS: protobuf.IConversionOptions = { longs: String, bytes: String, enums: Number, defaults: false, arrays: true, objects: true };

export type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
export type KeyValue = { key: string; value?: AnyValue };
export interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  traceState?: string;
  flags?: number;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  droppedAttributesCount?: number;
  events?: Array<{ timeUnixNano?: string; name?: string; attributes?: KeyValue[]; droppedAttributesCount?: number }>;
  droppedEventsCount?: number;
  links?: Array<{ traceId?: string; spanId?: string; traceState?: string; attributes?: KeyValue[]; droppedAttributesCount?: number; flags?: number }>;
  droppedLinksCount?: number;
  status?: { message?: string; code?: number };
}
export interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[]; droppedAttributesCount?: number };
    scopeSpans?: Array<{
      scope?: { name?: string; version?: string; attributes?: KeyValue[]; droppedAttributesCount?: number };
      spans?: OtlpSpan[];
      schemaUrl?: string;
    }>;
    schemaUrl?: string;
  }>;
}

export class DecodeError extends Error {
  override name = 'DecodeError';
}

/** Decodes a protobuf `ExportTraceServiceRequest`; ids come back base64 (see `idToHex`). */
export function decodeProtobuf(body: Buffer): OtlpRequest {
  let message: protobuf.Message;
  try {
    message = ExportTraceServiceRequest.decode(body);
  } catch (error) {
    throw new DecodeError(`The body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  return ExportTraceServiceRequest.toObject(message, OBJECT_OPTIONS) as OtlpRequest;
}

const HEX_ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/**
 * Decodes the OTLP/JSON mapping: proto3 JSON, except that trace and span ids are hex strings
 * (OTLP's one deviation). Enums by name or number and 64-bit integers as strings or numbers are
 * accepted by protobufjs's `fromObject`; the result has the same shape as `decodeProtobuf`'s.
 */
export function decodeJson(body: Buffer): OtlpRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new DecodeError(`The body is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new DecodeError('The body is not an ExportTraceServiceRequest object');
  let message: protobuf.Message;
  try {
    message = ExportTraceServiceRequest.fromObject(hexIdsToBase64(parsed) as Record<string, unknown>);
  } catch (error) {
    if (error instanceof DecodeError) throw error;
    throw new DecodeError(`The body is not an ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  return ExportTraceServiceRequest.toObject(message, OBJECT_OPTIONS) as OtlpRequest;
}

/** Rewrites hex `traceId` / `spanId` / `parentSpanId` (spans and links) to base64 for fromObject. */
function hexIdsToBase64(value: unknown, depth = 0): unknown {
  if (depth > 64) throw new DecodeError('The body nests too deeply');
  if (Array.isArray(value)) return value.map((item) => hexIdsToBase64(item, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (HEX_ID_FIELDS.has(key) && typeof item === 'string') {
      // An id that is not hex is kept as a marker the validator rejects per span.
      out[key] = /^([0-9a-fA-F]{2})*$/.test(item) ? Buffer.from(item, 'hex').toString('base64') : Buffer.from('invalid-id').toString('base64');
    } else out[key] = hexIdsToBase64(item, depth + 1);
  }
  return out;
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export function encodeResponseProtobuf(partial?: PartialSuccess): Buffer {
  const body = partial && partial.rejectedSpans > 0 ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {};
  return Buffer.from(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(body)).finish());
}

export function responseJson(partial?: PartialSuccess): Record<string, unknown> {
  return partial && partial.rejectedSpans > 0 ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {};
}

/** base64 id (as decoded) → lowercase hex; '' for a missing id. */
export function idToHex(id: string | undefined): string {
  return id ? Buffer.from(id, 'base64').toString('hex') : '';
}
