// The auth service in a process of its own with tracing started, for bench:auth's instruction
// count of tracing: on the parent's message it switches the span pipeline between off, every
// request traced and 10 % of new traces sampled, and acknowledges. All states then run the same
// compiled code on the same heap. Bundled and run under callgrind by the bench
// (lib/instructions.ts); sends {port} once listening.
import { startService } from '@platform/service-kit';
import { startTelemetry } from '@platform/telemetry';
import { authService } from '../../../apps/auth/src/service';
import { currentSpanPipeline, samplingFromEnv, useSpanPipeline, type SpanPipeline } from '../../../libs/telemetry/src/server-spans';

export type TracingState = 'off' | 'every request' | '10 % sampled';

async function main(): Promise<void> {
  startTelemetry('auth');
  const every = currentSpanPipeline();
  if (!every) throw new Error('tracing did not start (OTEL_SDK_DISABLED?)');
  const sampled: SpanPipeline = { ...every, ...samplingFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }) };
  const states: Record<TracingState, SpanPipeline | undefined> = { off: undefined, 'every request': every, '10 % sampled': sampled };
  const svc = await startService(authService, { env: { PORT: '0' } });
  process.on('message', (message: { state: TracingState }) => {
    useSpanPipeline(states[message.state]);
    process.send!({ state: message.state });
  });
  process.send!({ port: svc.port });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
