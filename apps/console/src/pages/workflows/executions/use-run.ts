import type { workflowEngine } from '@platform/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useReducer, useState } from 'react';
import { executionEvents, unwrap, usePlatform, type PlatformError } from '../../../api';
import { workflowKeys } from '../api/workflows-api';
import { applyStreamEvent, emptyRun, isFinished, runFromExecution, type RunView, type StreamMessage } from '../graph/node-states';

type Action = { kind: 'event'; event: StreamMessage } | { kind: 'replace'; run: RunView };

function reduce(run: RunView, action: Action): RunView {
  return action.kind === 'replace' ? action.run : applyStreamEvent(run, action.event);
}

/**
 * A run as it happens: the stored execution first (a finished run is simply replayed), then, while
 * it runs, the engine's WebSocket stream (through the SDK) folded event by event. When the stream
 * ends, fails or is refused, the stored execution is read again, every second until the run has
 * ended: it also holds what the stream does not carry (every node's attempts).
 */
export function useRun(executionId: string, nodeIds: readonly string[]) {
  const platform = usePlatform();
  const client = useQueryClient();
  const [run, dispatch] = useReducer(reduce, nodeIds, emptyRun);
  const [error, setError] = useState<PlatformError | undefined>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const execution: workflowEngine.Execution = await unwrap(
        platform.workflowEngine.GET('/api/v1/executions/{executionId}', { params: { path: { executionId } } }),
      );
      client.setQueryData(workflowKeys.execution(executionId), execution);
      return execution;
    };
    const poll = async () => {
      if (stop.signal.aborted) return;
      try {
        const execution = await read();
        if (stop.signal.aborted) return;
        dispatch({ kind: 'replace', run: runFromExecution(execution) });
        if (!isFinished(execution.status)) timer = setTimeout(() => void poll(), 1000);
        else void client.invalidateQueries({ queryKey: workflowKeys.history(execution.workflowId) });
      } catch (failure) {
        if (!stop.signal.aborted) setError(failure as PlatformError);
      }
    };
    const follow = async () => {
      try {
        const stream = await executionEvents(platform, executionId, { signal: stop.signal });
        setLive(true);
        for await (const event of stream) dispatch({ kind: 'event', event: event as StreamMessage });
      } catch {
        // A refused or broken stream: the stored run is read instead (below).
      } finally {
        setLive(false);
      }
      await poll();
    };
    void (async () => {
      try {
        const execution = await read();
        if (stop.signal.aborted) return;
        dispatch({ kind: 'replace', run: runFromExecution(execution) });
        if (!isFinished(execution.status)) await follow();
      } catch (failure) {
        if (!stop.signal.aborted) setError(failure as PlatformError);
      }
    })();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [executionId, platform, client]);

  return { run, error, live };
}
