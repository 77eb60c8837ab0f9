import type { workers } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';

type RunPage = z.infer<typeof workers.RunPage>;
type RunSummary = z.infer<typeof workers.RunSummary>;
type Dag = z.infer<typeof workers.Dag>;
type Trace = z.infer<typeof workers.Trace>;

const WORKERS = 'workers' as const;
const runKey = (id: string) => ['workers', 'run', id] as const;
const live = (state: string | undefined) => (state === 'pending' || state === 'running' ? 2000 : false);

export function useRunningRuns(offset: number, limit = 50) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['workers', 'running', offset],
    queryFn: () => request<RunPage>(WORKERS, '/api/v1/workflows/running', { query: { limit, offset } }),
    refetchInterval: 5000,
  });
}

/** The run's graph, refreshed every 2 s while it runs. */
export function useDag(id: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: [...runKey(id), 'dag'],
    queryFn: () => request<Dag>(WORKERS, `/api/v1/workflows/${encodeURIComponent(id)}/dag`),
    refetchInterval: (query) => live(query.state.data?.state),
  });
}

export function useTrace(id: string, state: string | undefined) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: [...runKey(id), 'trace'],
    queryFn: () => request<Trace>(WORKERS, `/api/v1/workflows/${encodeURIComponent(id)}/trace`),
    refetchInterval: live(state),
  });
}

/** Retry or cancel of the run, or retry of one of its steps; the graph is read again after. */
export function useRunAction(id: string) {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (action: { kind: 'retry' | 'cancel' } | { kind: 'retry-step'; taskId: string }) =>
      action.kind === 'retry-step'
        ? request<unknown>(WORKERS, `/api/v1/tasks/${encodeURIComponent(action.taskId)}/retry`, { method: 'POST' })
        : request<RunSummary>(WORKERS, `/api/v1/workflows/${encodeURIComponent(id)}/${action.kind}`, { method: 'POST' }),
    onSettled: () => client.invalidateQueries({ queryKey: runKey(id) }),
  });
}
