import { canCancel, canRetry, canRetryStep, runGraph } from './run-graph';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const dag = {
  workflow_id: uuid(0),
  state: 'failed' as const,
  error: 'step fetch failed',
  blocked_steps: ['report'],
  nodes: [
    { id: 'fetch', task_id: uuid(1), type: 'http' as const, state: 'failed' as const, attempt: 2, depends_on: [] },
    { id: 'lookup', task_id: uuid(2), type: 'database' as const, state: 'completed' as const, attempt: 1, depends_on: [] },
    { id: 'report', task_id: uuid(3), type: 'agent' as const, state: 'blocked' as const, attempt: 0, depends_on: ['fetch', 'lookup'] },
  ],
  edges: [
    { source: 'fetch', target: 'report' },
    { source: 'lookup', target: 'report' },
  ],
};
const entry = (step: string, attempt: number, error: string | null) => ({
  step,
  task_id: uuid(1),
  attempt,
  state: error ? 'failed' : 'completed',
  worker: 'w1',
  idempotency_key: `${uuid(0)}:${step}`,
  started_at: '2026-11-27T00:00:00.000Z',
  finished_at: '2026-11-27T00:00:01.000Z',
  duration_ms: 1000,
  error,
});

describe('a workers run as a graph', () => {
  it('lays steps out by dependency depth with their states, attempts and last error', () => {
    const trace = {
      workflow_id: uuid(0),
      trace_id: 't',
      state: 'failed' as const,
      created_at: '',
      finished_at: null,
      timeline: [entry('fetch', 2, 'HTTP 500'), entry('fetch', 1, 'timeout'), entry('lookup', 1, null)],
    };
    const graph = runGraph(dag, trace);
    const byId = Object.fromEntries(graph.nodes.map((node) => [node.id, node]));
    expect(byId.fetch.position.x).toBe(0);
    expect(byId.lookup.position.x).toBe(0);
    expect(byId.report.position.x).toBe(260);
    expect(byId.fetch.data).toMatchObject({ state: 'failed', attempt: 2, lastError: 'HTTP 500', blocked: false });
    expect(byId.fetch.data.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(byId.lookup.data.lastError).toBeUndefined();
    expect(byId.report.data).toMatchObject({ blocked: true, attempts: [] });
    expect(graph.edges).toEqual([
      { id: 'fetch->report', source: 'fetch', target: 'report' },
      { id: 'lookup->report', source: 'lookup', target: 'report' },
    ]);
  });

  it('draws the graph before the timeline has loaded', () => {
    expect(runGraph(dag, undefined).nodes.every((node) => node.data.attempts.length === 0)).toBe(true);
  });

  it('offers retry and cancel only where the workers accept them', () => {
    expect(['pending', 'running', 'completed', 'failed', 'cancelled'].map((s) => [canRetry(s), canCancel(s)])).toEqual([
      [false, true],
      [false, true],
      [false, false],
      [true, false],
      [true, false],
    ]);
    expect(canRetryStep({ state: 'failed' })).toBe(true);
    expect(canRetryStep({ state: 'blocked' })).toBe(false);
  });
});
