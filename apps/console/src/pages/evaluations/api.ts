import { tracing } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';

export type Dataset = z.infer<typeof tracing.Dataset>;
export type Evaluation = z.infer<typeof tracing.Evaluation>;
export type CreateDataset = z.input<typeof tracing.CreateDataset>;
export type CreateEvaluation = z.input<typeof tracing.CreateEvaluation>;

export const RESULTS_PAGE_SIZE = 100;

export function useDatasets() {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'datasets'],
    queryFn: async () => tracing.DatasetPage.parse(await platform.request('tracing', '/api/datasets', { query: { limit: 500 } })),
  });
}

export function useDataset(id: string) {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'dataset', id],
    queryFn: async () => tracing.Dataset.parse(await platform.request('tracing', `/api/datasets/${encodeURIComponent(id)}`)),
  });
}

export function useEvaluations(options: { poll?: boolean } = {}) {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'evaluations'],
    queryFn: async () => tracing.EvaluationPage.parse(await platform.request('tracing', '/api/evaluations', { query: { limit: 500 } })),
    // While an evaluation runs its counts move: keep the list current.
    refetchInterval: (query) => (options.poll && query.state.data?.evaluations.some((evaluation) => evaluation.status === 'running') ? 2_000 : false),
  });
}

/** A page of one evaluation's results; polled while any of them is still to run. */
export function useEvaluationResults(id: string, offset: number) {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'evaluation-results', id, offset],
    queryFn: async () =>
      tracing.EvaluationResultPage.parse(
        await platform.request('tracing', `/api/evaluations/${encodeURIComponent(id)}/results`, { query: { limit: RESULTS_PAGE_SIZE, offset } }),
      ),
    refetchInterval: (query) => (query.state.data?.results.some((result) => result.status === 'pending' || result.status === 'running') ? 2_000 : false),
  });
}

export function useCreateDataset() {
  const platform = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateDataset) => tracing.Dataset.parse(await platform.request('tracing', '/api/datasets', { method: 'POST', json: body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['tracing', 'datasets'] }),
  });
}

export function useStartEvaluation() {
  const platform = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateEvaluation) =>
      tracing.Evaluation.parse(await platform.request('tracing', '/api/evaluations', { method: 'POST', json: body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['tracing', 'evaluations'] }),
  });
}
