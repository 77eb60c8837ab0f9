import type { workers } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { unwrap, usePlatform } from '../../api';

type RunPage = z.infer<typeof workers.RunPage>;
type Dag = z.infer<typeof workers.Dag>;
type Trace = z.infer<typeof workers.Trace>;

const runKey = (id: string) => ['workers', 'run', id] as const;
const live = (state: string | undefined) => (state === 'pending' || state === 'running' ? 2000 : false);

export function useRunningRuns(offset: number, limit = 50) {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['workers', 'running', offset],
    queryFn: (): Promise<RunPage> => unwrap(platform.workers.GET('/api/v1/workflows/running', { params: { query: { limit, offset } } })),
    refetchInterval: 5000,
  });
}

/** The run's graph, refreshed every 2 s while it runs. */
export function useDag(id: string) {
  const platform = usePlatform();
  return useQuery({
    queryKey: [...runKey(id), 'dag'],
    queryFn: (): Promise<Dag> => unwrap(platform.workers.GET('/api/v1/workflows/{workflow_id}/dag', { params: { path: { workflow_id: id } } })),
    refetchInterval: (query) => live(query.state.data?.state),
  });
}

export function useTrace(id: string, state: string | undefined) {
  const platform = usePlatform();
  return useQuery({
    queryKey: [...runKey(id), 'trace'],
    queryFn: (): Promise<Trace> => unwrap(platform.workers.GET('/api/v1/workflows/{workflow_id}/trace', { params: { path: { workflow_id: id } } })),
    refetchInterval: live(state),
  });
}

/** Retry or cancel of the run, or retry of one of its steps; the graph is read again after. */
export function useRunAction(id: string) {
  const platform = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (action: { kind: 'retry' | 'cancel' } | { kind: 'retry-step'; taskId: string }): Promise<unknown> => {
      if (action.kind === 'retry-step') return unwrap(platform.workers.POST('/api/v1/tasks/{task_id}/retry', { params: { path: { task_id: action.taskId } } }));
      const path = { params: { path: { workflow_id: id } } };
      return action.kind === 'retry'
        ? unwrap(platform.workers.POST('/api/v1/workflows/{workflow_id}/retry', path))
        : unwrap(platform.workers.POST('/api/v1/workflows/{workflow_id}/cancel', path));
    },
    onSettled: () => client.invalidateQueries({ queryKey: runKey(id) }),
  });
}
