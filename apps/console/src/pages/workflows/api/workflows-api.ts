import type { workflowEngine } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../../api';

type CatalogResponse = z.infer<typeof workflowEngine.CatalogResponse>;
type ExecutionHistory = z.infer<typeof workflowEngine.ExecutionHistory>;
type ExecutionAccepted = z.infer<typeof workflowEngine.ExecutionAccepted>;
type WorkflowCreated = z.infer<typeof workflowEngine.WorkflowCreated>;
export type CatalogEntry = CatalogResponse['workflows'][number];

const ENGINE = 'workflow-engine' as const;

export const workflowKeys = {
  catalog: (offset: number) => ['workflow-engine', 'catalog', offset] as const,
  components: ['workflow-engine', 'components'] as const,
  workflow: (id: string) => ['workflow-engine', 'workflow', id] as const,
  history: (id: string) => ['workflow-engine', 'history', id] as const,
  execution: (id: string) => ['workflow-engine', 'execution', id] as const,
};

export function useCatalog(offset: number, limit = 50) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: workflowKeys.catalog(offset),
    queryFn: () => request<CatalogResponse>(ENGINE, '/api/v1/workflows/catalog', { query: { limit, offset } }),
  });
}

/** The component library: it ships with the engine, so it is read once per page load. */
export function useComponents() {
  const { request } = usePlatform();
  return useQuery({
    queryKey: workflowKeys.components,
    queryFn: () => request<{ components: workflowEngine.ComponentInfo[] }>(ENGINE, '/api/v1/components'),
    staleTime: Infinity,
  });
}

export function useWorkflow(id: string | undefined) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: workflowKeys.workflow(id ?? ''),
    queryFn: () => request<workflowEngine.WorkflowDetail>(ENGINE, `/api/v1/workflows/${encodeURIComponent(id ?? '')}`),
    enabled: Boolean(id),
    // A stored workflow never changes.
    staleTime: Infinity,
  });
}

export function useExecutionHistory(workflowId: string, offset = 0) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: [...workflowKeys.history(workflowId), offset],
    queryFn: () => request<ExecutionHistory>(ENGINE, `/api/v1/workflows/${encodeURIComponent(workflowId)}/executions`, { query: { limit: 20, offset } }),
  });
}

export function useExecution(executionId: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: workflowKeys.execution(executionId),
    queryFn: () => request<workflowEngine.Execution>(ENGINE, `/api/v1/executions/${encodeURIComponent(executionId)}`),
  });
}

export interface NewWorkflow {
  name: string;
  description: string;
  category: string;
  flow: workflowEngine.Flow;
}

export function useCreateWorkflow() {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewWorkflow) => request<WorkflowCreated>(ENGINE, '/api/v1/workflows', { method: 'POST', json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['workflow-engine', 'catalog'] }),
  });
}

export function useExecuteWorkflow(workflowId: string) {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request<ExecutionAccepted>(ENGINE, `/api/v1/workflows/${encodeURIComponent(workflowId)}/execute`, { method: 'POST', json: {} }),
    onSuccess: () => client.invalidateQueries({ queryKey: workflowKeys.history(workflowId) }),
  });
}
