import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import type { AnyValue } from '../ingest/otlp.codec';
import { plainAttributes, plainValue } from '../ingest/span-rows';
import type { StoredSpan } from './spans.repository';

type Span = z.infer<typeof tracing.Span>;
type ModelCall = z.infer<typeof tracing.ModelCall>;
type SpanNode = z.infer<typeof tracing.SpanNode>;

export const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
export const STATUSES = ['UNSET', 'OK', 'ERROR'] as const;

/** ns since epoch (decimal string) → ISO time with the nanoseconds kept: 2026-11-23T10:00:00.123456789Z */
export function isoNano(unixNano: string): string {
  const ns = BigInt(unixNano);
  const ms = Number(ns / 1_000_000n);
  const base = new Date(ms).toISOString().slice(0, 19);
  return `${base}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}Z`;
}

type Attrs = Record<string, AnyValue>;

export function spanView(row: StoredSpan): Span {
  const resource = row.resource as { attributes?: Attrs; droppedAttributesCount?: number };
  const scope = row.scope as { name?: string; version?: string; attributes?: Attrs };
  return {
    project: row.project,
    trace_id: row.trace_id,
    span_id: row.span_id,
    parent_span_id: row.parent_span_id,
    name: row.name,
    kind: KINDS[row.kind] ?? 'UNSPECIFIED',
    status: { code: STATUSES[row.status_code] ?? 'UNSET', message: row.status_message },
    start_time: isoNano(row.start_unix_nano),
    end_time: isoNano(row.end_unix_nano),
    start_time_unix_nano: row.start_unix_nano,
    end_time_unix_nano: row.end_unix_nano,
    duration_ms: Number(BigInt(row.duration_nano)) / 1e6,
    trace_state: row.trace_state,
    flags: row.flags,
    attributes: plainAttributes(row.attributes as Attrs),
    events: (row.events as Array<{ timeUnixNano: string; name: string; attributes?: Attrs; droppedAttributesCount?: number }>).map((event) => ({
      name: event.name,
      time: isoNano(event.timeUnixNano || '0'),
      time_unix_nano: event.timeUnixNano,
      attributes: plainAttributes(event.attributes),
      ...(event.droppedAttributesCount && { dropped_attributes_count: event.droppedAttributesCount }),
    })),
    links: (row.links as Array<{ traceId: string; spanId: string; traceState?: string; attributes?: Attrs; flags?: number }>).map((link) => ({
      trace_id: link.traceId,
      span_id: link.spanId,
      ...(link.traceState && { trace_state: link.traceState }),
      ...(link.flags && { flags: link.flags }),
      attributes: plainAttributes(link.attributes),
    })),
    resource: {
      attributes: plainAttributes(resource.attributes),
      ...(resource.droppedAttributesCount && { dropped_attributes_count: resource.droppedAttributesCount }),
    },
    scope: {
      ...(scope.name && { name: scope.name }),
      ...(scope.version && { version: scope.version }),
      ...(scope.attributes && { attributes: plainAttributes(scope.attributes) }),
    },
    session_id: row.session_id,
    user_id: row.user_id,
    model_call: modelCallView(row),
  };
}

type StoredEvent = { name: string; attributes?: Attrs };
const PROMPT_EVENTS = new Set(['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message']);

/** The first of these attributes that is set, as plain JSON. */
function firstOf(attributes: Attrs, keys: string[]): unknown {
  for (const key of keys) if (attributes[key] !== undefined) return plainValue(attributes[key]);
  return undefined;
}

/**
 * Prompt and completion, wherever the instrumentation put them: GenAI attributes (`gen_ai.prompt`,
 * `gen_ai.input.messages`, ...), GenAI events (`gen_ai.content.prompt`, `gen_ai.user.message`,
 * `gen_ai.choice`, ...), else OpenInference's `input.value` / `output.value`.
 */
function promptAndCompletion(attributes: Attrs, events: StoredEvent[]): { prompt?: unknown; completion?: unknown } {
  let prompt = firstOf(attributes, ['gen_ai.prompt', 'gen_ai.input.messages']);
  let completion = firstOf(attributes, ['gen_ai.completion', 'gen_ai.output.messages']);
  if (prompt === undefined) {
    const content = events.find((event) => event.name === 'gen_ai.content.prompt');
    const messages = events.filter((event) => PROMPT_EVENTS.has(event.name)).map((event) => plainAttributes(event.attributes));
    prompt = content ? firstOf(content.attributes ?? {}, ['gen_ai.prompt']) : messages.length > 0 ? messages : undefined;
  }
  if (completion === undefined) {
    const content = events.find((event) => event.name === 'gen_ai.content.completion');
    const choices = events.filter((event) => event.name === 'gen_ai.choice').map((event) => plainAttributes(event.attributes));
    completion = content ? firstOf(content.attributes ?? {}, ['gen_ai.completion']) : choices.length > 0 ? choices : undefined;
  }
  prompt ??= firstOf(attributes, ['input.value']);
  completion ??= firstOf(attributes, ['output.value']);
  return { ...(prompt !== undefined && { prompt }), ...(completion !== undefined && { completion }) };
}

function modelCallView(row: StoredSpan): ModelCall | null {
  if (row.model === null) return null;
  const input = row.input_tokens === null ? null : Number(row.input_tokens);
  const output = row.output_tokens === null ? null : Number(row.output_tokens);
  return {
    model: row.model,
    system: row.model_system,
    input_tokens: input,
    output_tokens: output,
    total_tokens: input === null && output === null ? null : (input ?? 0) + (output ?? 0),
    cost: row.cost,
    ...promptAndCompletion(row.attributes as Attrs, row.events as StoredEvent[]),
  };
}

/** Children under their parents (by start time); a span whose parent is not stored stays at the root. */
export function spanTree(spans: Span[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const span of spans) nodes.set(span.span_id, { ...span, children: [] });
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent_span_id ? nodes.get(node.parent_span_id) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
