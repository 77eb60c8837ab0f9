import type { workflowEngine } from '@platform/contracts';
import { applyStreamEvent, emptyRun, formatDuration, isFinished, runFromExecution, type StreamMessage } from './node-states';

describe('a run folded from its stream', () => {
  it('follows each node through started, retrying, completed, failed and skipped', () => {
    const events: StreamMessage[] = [
      { type: 'node-started', nodeId: 'a', timestamp: 't1' },
      { type: 'node-completed', nodeId: 'a', duration: 12, output: { merged: [1] }, timestamp: 't2' },
      { type: 'node-started', nodeId: 'b', timestamp: 't3' },
      { type: 'node-retrying', nodeId: 'b', attempt: 1, nextAttemptIn: 200, error: { code: 'MODEL_ERROR', message: 'busy' } },
      { type: 'node-failed', nodeId: 'b', attempt: 2, error: { code: 'MODEL_ERROR', message: 'still busy' }, timestamp: 't4' },
      { type: 'node-skipped', nodeId: 'c' },
      { type: 'workflow-failed', duration: 40, error: { nodeId: 'b', code: 'MODEL_ERROR', message: 'still busy' } },
    ];
    const seen = events.reduce(applyStreamEvent, emptyRun(['a', 'b', 'c']));
    expect(seen.status).toBe('failed');
    expect(seen.nodes.a).toEqual({
      status: 'completed',
      startedAt: 't1',
      completedAt: 't2',
      duration: 12,
      output: { merged: [1] },
      attempts: 1,
      error: undefined,
    });
    expect(seen.nodes.b).toMatchObject({ status: 'failed', attempts: 2, error: { message: 'still busy' } });
    expect(seen.nodes.c.status).toBe('skipped');
    expect(seen.error).toMatchObject({ nodeId: 'b' });
    expect(isFinished(seen.status)).toBe(true);
  });

  it('shows the retry in progress before the node ends, and ignores events it does not know', () => {
    let run = emptyRun(['b']);
    run = applyStreamEvent(run, { type: 'node-started', nodeId: 'b', timestamp: 't' });
    run = applyStreamEvent(run, { type: 'node-retrying', nodeId: 'b', attempt: 1, nextAttemptIn: 500, error: { message: 'x' } });
    expect(run.nodes.b).toMatchObject({ status: 'retrying', nextAttemptIn: 500 });
    expect(applyStreamEvent(run, { type: 'batch-progress' })).toBe(run);
    expect(isFinished(run.status)).toBe(false);
  });

  it('replays a stored execution: node states, outputs and the failing node', () => {
    const execution: workflowEngine.Execution = {
      executionId: 'e',
      workflowId: 'w',
      status: 'failed',
      startedAt: '2026-11-27T00:00:00.000Z',
      completedAt: '2026-11-27T00:00:01.000Z',
      duration: 1000,
      estimatedDuration: 1,
      nodes: [
        { nodeId: 'a', status: 'completed', duration: 5, attempts: 1 },
        { nodeId: 'b', status: 'failed', duration: 9, attempts: 3 },
        { nodeId: 'c', status: 'pending', duration: null, attempts: 0 },
      ],
      result: { a: { merged: [1, 2] } },
      error: { nodeId: 'b', attempt: 3, message: 'boom', code: 'TOOL_ERROR', retryable: false },
      retryable: false,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    };
    const run = runFromExecution(execution);
    expect(run.nodes).toEqual({
      a: { status: 'completed', duration: 5, attempts: 1, output: { merged: [1, 2] } },
      b: { status: 'failed', duration: 9, attempts: 3, error: { code: 'TOOL_ERROR', message: 'boom' } },
      c: { status: 'pending', duration: null, attempts: 0 },
    });
    expect(run).toMatchObject({ status: 'failed', duration: 1000, error: { nodeId: 'b' }, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
    // The stream's events keep the trace the stored run named.
    expect(applyStreamEvent(run, { type: 'workflow-failed', duration: 1000 }).traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('writes durations as people read them', () => {
    expect(formatDuration(null)).toBe('–');
    expect(formatDuration(340)).toBe('340 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(75_000)).toBe('1 min 15 s');
  });
});
