import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useReducer, useState } from 'react';
import { platformUrl, session, usePlatform, type PlatformError } from '../../../api';
import type { workflowEngine } from '@platform/contracts';
import { workflowKeys } from '../api/workflows-api';
import { applyStreamEvent, emptyRun, isFinished, runFromExecution, type RunView, type StreamMessage } from '../graph/node-states';

type Action = { kind: 'event'; event: StreamMessage } | { kind: 'replace'; run: RunView };

function reduce(run: RunView, action: Action): RunView {
  return action.kind === 'replace' ? action.run : applyStreamEvent(run, action.event);
}

/** The WebSocket address of a run's stream through the gateway (a browser cannot set headers on an upgrade). */
function streamUrl(executionId: string, token: string): string {
  const origin = window.location.origin.replace(/^http/, 'ws');
  return `${origin}${platformUrl('workflow-engine', `/api/v1/executions/${encodeURIComponent(executionId)}/stream`, { access_token: token })}`;
}

/**
 * A run as it happens: the stored execution first (a finished run is simply replayed), then, while
 * it runs, the engine's WebSocket stream folded event by event. Should the stream fail or close
 * before the run ends, the execution is read again every second until it has.
 */
export function useRun(executionId: string, nodeIds: readonly string[]) {
  const { request } = usePlatform();
  const client = useQueryClient();
  const [run, dispatch] = useReducer(reduce, nodeIds, emptyRun);
  const [error, setError] = useState<PlatformError | undefined>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    let stopped = false;
    let socket: WebSocket | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const execution = await request<workflowEngine.Execution>('workflow-engine', `/api/v1/executions/${encodeURIComponent(executionId)}`);
      client.setQueryData(workflowKeys.execution(executionId), execution);
      return execution;
    };
    const poll = async () => {
      if (stopped) return;
      try {
        const execution = await read();
        if (stopped) return;
        dispatch({ kind: 'replace', run: runFromExecution(execution) });
        if (!isFinished(execution.status)) timer = setTimeout(() => void poll(), 1000);
        else void client.invalidateQueries({ queryKey: workflowKeys.history(execution.workflowId) });
      } catch (failure) {
        if (!stopped) setError(failure as PlatformError);
      }
    };
    const follow = (execution: workflowEngine.Execution) => {
      const token = session.accessToken;
      if (!token) return void poll();
      let ended = false;
      socket = new WebSocket(streamUrl(executionId, token));
      socket.onopen = () => setLive(true);
      socket.onmessage = (message) => {
        let event: StreamMessage;
        try {
          event = JSON.parse(String(message.data)) as StreamMessage;
        } catch {
          return;
        }
        dispatch({ kind: 'event', event });
        if (event.type === 'workflow-completed' || event.type === 'workflow-failed') {
          ended = true;
          // The stored run has what the stream does not carry (outputs of a replay, attempts): read it once more.
          void poll();
        }
      };
      socket.onclose = () => {
        setLive(false);
        if (!ended && !stopped) void poll();
      };
      socket.onerror = () => undefined;
      dispatch({ kind: 'replace', run: runFromExecution(execution) });
    };
    void (async () => {
      try {
        const execution = await read();
        if (stopped) return;
        if (isFinished(execution.status)) dispatch({ kind: 'replace', run: runFromExecution(execution) });
        else follow(execution);
      } catch (failure) {
        if (!stopped) setError(failure as PlatformError);
      }
    })();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      socket?.close();
    };
  }, [executionId, request, client]);

  return { run, error, live };
}
