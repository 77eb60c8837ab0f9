// The auth service in a process of its own with tracing started, for bench:auth's measure of
// tracing in one process: on the parent's message it switches the span pipeline between
// off, every request traced and 10 % of new traces sampled, one state per window, and answers
// each window's CPU time and requests served. Both states then run the same compiled code on the
// same heap, and alternating cancels the machine's drift; a comparison of separate processes
// cannot separate either from tracing's cost. Bundled and forked by the bench; sends {port} once
// listening. Under callgrind (lib/instructions.ts), the parent sets each state itself instead.
import { startService } from '@platform/service-kit';
import { startTelemetry } from '@platform/telemetry';
import { authService } from '../../../apps/auth/src/service';
import { currentSpanPipeline, samplingFromEnv, useSpanPipeline, type SpanPipeline } from '../../../libs/telemetry/src/server-spans';

export type TracingState = 'off' | 'every request' | '10 % sampled';
export interface TracingWindow {
  state: TracingState;
  cpuMicros: number;
  requests: number;
}

async function main(): Promise<void> {
  startTelemetry('auth');
  const every = currentSpanPipeline();
  if (!every) throw new Error('tracing did not start (OTEL_SDK_DISABLED?)');
  const sampled: SpanPipeline = { ...every, ...samplingFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }) };
  const states: Array<[TracingState, SpanPipeline | undefined]> = [
    ['off', undefined],
    ['every request', every],
    ['10 % sampled', sampled],
  ];
  const svc = await startService(authService, { env: { PORT: '0' } });
  let requests = 0;
  svc.server.on('request', () => requests++);
  // `cycles` of one window per state, after one cycle of warm-up. A switch deoptimizes code that
  // saw the other state (the request path runs unoptimized until compiled again), so each window
  // is counted from `settleMs` after its switch: what a process in that state costs.
  process.on('message', (message: { cycles: number; windowMs: number; settleMs: number } | { state: TracingState }) => {
    // One state, set at once and acknowledged (the instruction count's windows are driven by the parent).
    if ('state' in message) {
      useSpanPipeline(states.find(([name]) => name === message.state)![1]);
      process.send!({ state: message.state });
      return;
    }
    const count = states.length * (message.cycles + 1);
    const windows: TracingWindow[] = [];
    let at = 0;
    let cpu = process.cpuUsage();
    let served = requests;
    const next = () => {
      const used = process.cpuUsage(cpu);
      if (at > 0) windows.push({ state: states[(at - 1) % states.length]![0], cpuMicros: used.user + used.system, requests: requests - served });
      if (at === count) {
        useSpanPipeline(every);
        process.send!({ windows });
        return;
      }
      useSpanPipeline(states[at % states.length]![1]);
      at++;
      setTimeout(() => {
        cpu = process.cpuUsage();
        served = requests;
        setTimeout(next, message.windowMs - message.settleMs);
      }, message.settleMs);
    };
    next();
  });
  process.send!({ port: svc.port });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
