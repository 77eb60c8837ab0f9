/** Colours of mcp-registry's health states, shared by the list and a connection's page. */
export const healthColor: Record<string, string> = { healthy: 'teal', degraded: 'orange', initializing: 'gray', error: 'red' };
export const statusColor: Record<string, string> = { active: 'teal', idle: 'gray', disconnected: 'gray', error: 'red' };

export const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.01 ? 2 : 0)} %`;

/** Seconds as the page says them: "42 s", "3 min", "5 h", "2 d". */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
