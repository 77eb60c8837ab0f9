import { layoutWaterfall } from './layout';
import { syntheticTrace } from './synthetic-trace';

/** The OTLP JSON spans as the tracing service would answer them, enough for the layout. */
function asStored(body: ReturnType<typeof syntheticTrace>['body']) {
  type Attr = { key: string; value: { stringValue?: string } };
  type OtlpSpan = {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
    startTimeUnixNano: string;
    endTimeUnixNano: string;
    status: { code: number };
  };
  return (body.resourceSpans as Array<{ resource: { attributes: Attr[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>).flatMap((resource) =>
    resource.scopeSpans[0].spans.map(
      (span) =>
        ({
          project: 'p',
          trace_id: span.traceId,
          span_id: span.spanId,
          parent_span_id: span.parentSpanId ?? null,
          name: span.name,
          start_time_unix_nano: span.startTimeUnixNano,
          end_time_unix_nano: span.endTimeUnixNano,
          status: { code: span.status.code === 2 ? 'ERROR' : 'OK', message: null },
          resource: { attributes: { 'service.name': resource.resource.attributes[0].value.stringValue } },
        }) as unknown as Parameters<typeof layoutWaterfall>[0][number],
    ),
  );
}

describe('synthetic trace', () => {
  it('has exactly the spans asked for, valid OTLP ids, under one root, across the services', () => {
    const trace = syntheticTrace({ spans: 10_000, traceId: 'ab'.repeat(16), project: 'bench', endMs: Date.UTC(2026, 10, 27, 12) });
    const spans = asStored(trace.body);
    expect(spans).toHaveLength(10_000);
    expect(new Set(spans.map((span) => span.span_id)).size).toBe(10_000);
    expect(spans.every((span) => /^[0-9a-f]{16}$/.test(span.span_id) && !/^0+$/.test(span.span_id))).toBe(true);
    const layout = layoutWaterfall(spans);
    expect(layout.rows.map((row) => row.span.span_id)).toEqual(trace.order);
    expect(layout.rows.filter((row) => row.depth === 0)).toHaveLength(1);
    expect(layout.services).toEqual(['gateway', 'workflow-engine', 'local-models', 'mcp-registry']);
    expect(layout.durationMs).toBe(2000);
    expect(layout.rows.some((row) => row.clamped || row.orphan)).toBe(false);
    expect(layout.rows.filter((row) => row.error)).toHaveLength(900); // every tenth leaf
  });

  it('makes small traces too', () => {
    expect(asStored(syntheticTrace({ spans: 100, traceId: 'cd'.repeat(16), project: 'p' }).body)).toHaveLength(100);
    expect(asStored(syntheticTrace({ spans: 1, traceId: 'cd'.repeat(16), project: 'p' }).body)).toHaveLength(1);
  });
});
