import { context, trace, TraceFlags, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { activeTraceId } from './active-trace';

describe('activeTraceId', () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  beforeAll(() => context.setGlobalContextManager(manager));
  afterAll(() => {
    context.disable();
    manager.disable();
  });

  it("is the active span's trace id", () => {
    const span = trace.wrapSpanContext({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
    expect(context.with(trace.setSpan(ROOT_CONTEXT, span), activeTraceId)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('is undefined without a span, or with the all-zero id of a non-recording stand-in', () => {
    expect(activeTraceId()).toBeUndefined();
    const invalid = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: TraceFlags.NONE });
    expect(context.with(trace.setSpan(ROOT_CONTEXT, invalid), activeTraceId)).toBeUndefined();
  });
});
