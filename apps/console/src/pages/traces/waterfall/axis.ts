/** Tick marks of the waterfall's time axis: round steps (1, 2 or 5 × 10ⁿ ms) across the trace. */
export interface Tick {
  ms: number;
  /** Position on the axis, 0–1. */
  fraction: number;
  label: string;
}

export function axisTicks(durationMs: number, wanted = 5): Tick[] {
  if (!(durationMs > 0)) return [{ ms: 0, fraction: 0, label: '0 ms' }];
  const rough = durationMs / Math.max(1, wanted);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const ticks: Tick[] = [];
  for (let index = 0; index * step <= durationMs + step * 1e-9; index++) {
    const ms = index * step;
    ticks.push({ ms, fraction: ms / durationMs, label: formatDuration(ms) });
  }
  return ticks;
}

/** A duration as a person reads it: µs below a millisecond, ms below a second, then s. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0 ms';
  if (ms < 1) return `${trim(ms * 1000)} µs`;
  if (ms < 1000) return `${trim(ms)} ms`;
  if (ms < 60_000) return `${trim(ms / 1000)} s`;
  return `${Math.floor(ms / 60_000)} min ${trim((ms % 60_000) / 1000)} s`;
}

const trim = (value: number) => String(Number(value.toPrecision(3)));
