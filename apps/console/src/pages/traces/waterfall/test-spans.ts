import type { tracing } from '@platform/contracts';

/** A span as the tracing service answers it, for the layout's tests: times in ms from a fixed epoch. */
export function span(
  id: string,
  parent: string | null,
  startMs: number,
  endMs: number,
  extra: Partial<tracing.Span> & { service?: string } = {},
): tracing.Span {
  const base = 1_795_000_000_000_000_000n; // 2026-11-18, in ns: beyond 2^53, as real ones are
  const ns = (ms: number) => (base + BigInt(Math.round(ms * 1e6))).toString();
  const { service, ...rest } = extra;
  // Cast: fields the waterfall does not read (model calls, sessions) are left out.
  return {
    project: 'test',
    trace_id: '0'.repeat(31) + '1',
    span_id: id,
    parent_span_id: parent,
    name: `op ${id}`,
    kind: 'INTERNAL',
    status: { code: 'UNSET', message: null },
    start_time: '',
    end_time: '',
    start_time_unix_nano: ns(startMs),
    end_time_unix_nano: ns(endMs),
    duration_ms: endMs - startMs,
    trace_state: null,
    flags: 0,
    attributes: {},
    events: [],
    links: [],
    resource: { attributes: service ? { 'service.name': service } : {} },
    scope: {},
    ...rest,
  } as tracing.Span;
}
