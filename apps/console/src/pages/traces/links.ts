/**
 * Where the console shows a trace: other sections link here with a trace id they hold (a workflow
 * execution, an agent call, an evaluation result).
 */
export function traceHref(traceId: string, spanId?: string): string {
  return `/traces/trace/${encodeURIComponent(traceId)}${spanId ? `?span=${encodeURIComponent(spanId)}` : ''}`;
}

export function projectHref(project: string): string {
  return `/traces/projects/${encodeURIComponent(project)}`;
}
