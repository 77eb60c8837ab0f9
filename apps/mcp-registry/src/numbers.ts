/** Rounds to `digits` decimals (latencies, loads, rates in API bodies). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
