import { isSpanContextValid, trace } from '@opentelemetry/api';

/** The W3C trace id of the span active now, or undefined when there is none (tracing off, or outside a request). */
export function activeTraceId(): string | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  return context && isSpanContextValid(context) ? context.traceId : undefined;
}
