import type { workflowEngine } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { unwrap, usePlatform } from '../../../api';

type CatalogResponse = z.infer<typeof workflowEngine.CatalogResponse>;
type ExecutionHistory = z.infer<typeof workflowEngine.ExecutionHistory>;
type ExecutionAccepted = z.infer<typeof workflowEngine.ExecutionAccepted>;
type WorkflowCreated = z.infer<typeof workflowEngine.WorkflowCreated>;
export type CatalogEntry = CatalogResponse['workflows'][number];

export const workflowKeys = {
  catalog: (offset: number) => ['workflow-engine', 'catalog', offset] as const,
  components: ['workflow-engine', 'components'] as const,
  workflow: (id: string) => ['workflow-engine', 'workflow', id] as const,
  history: (id: string) => ['workflow-engine', 'history', id] as const,
  execution: (id: string) => ['workflow-engine', 'execution', id] as const,
};

export function useCatalog(offset: number, limit = 50) {
  const platform = usePlatform();
  return useQuery({
    queryKey: workflowKeys.catalog(offset),
    queryFn: (): Promise<CatalogResponse> => unwrap(platform.workflowEngine.GET('/api/v1/workflows/catalog', { params: { query: { limit, offset } } })),
  });
}

/** The component library: it ships with the engine, so it is read once per page load. */
export function useComponents() {
  const platform = usePlatform();
  return useQuery({
    queryKey: workflowKeys.components,
    queryFn: (): Promise<{ components: workflowEngine.ComponentInfo[] }> => unwrap(platform.workflowEngine.GET('/api/v1/components')),
    staleTime: Infinity,
  });
}

export function useWorkflow(id: string | undefined) {
  const platform = usePlatform();
  return useQuery({
    queryKey: workflowKeys.workflow(id ?? ''),
    queryFn: (): Promise<workflowEngine.WorkflowDetail> =>
      unwrap(platform.workflowEngine.GET('/api/v1/workflows/{workflowId}', { params: { path: { workflowId: id ?? '' } } })),
    enabled: Boolean(id),
    // A stored workflow never changes.
    staleTime: Infinity,
  });
}

export function useExecutionHistory(workflowId: string, offset = 0) {
  const platform = usePlatform();
  return useQuery({
    queryKey: [...workflowKeys.history(workflowId), offset],
    queryFn: (): Promise<ExecutionHistory> =>
      unwrap(platform.workflowEngine.GET('/api/v1/workflows/{workflowId}/executions', { params: { path: { workflowId }, query: { limit: 20, offset } } })),
  });
}

export function useExecution(executionId: string) {
  const platform = usePlatform();
  return useQuery({
    queryKey: workflowKeys.execution(executionId),
    queryFn: (): Promise<workflowEngine.Execution> =>
      unwrap(platform.workflowEngine.GET('/api/v1/executions/{executionId}', { params: { path: { executionId } } })),
  });
}

export interface NewWorkflow {
  name: string;
  description: string;
  category: string;
  flow: workflowEngine.Flow;
}

export function useCreateWorkflow() {
  const platform = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewWorkflow): Promise<WorkflowCreated> => unwrap(platform.workflowEngine.POST('/api/v1/workflows', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['workflow-engine', 'catalog'] }),
  });
}

export function useExecuteWorkflow(workflowId: string) {
  const platform = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (): Promise<ExecutionAccepted> =>
      unwrap(
        platform.workflowEngine.POST('/api/v1/workflows/{workflowId}/execute', { params: { path: { workflowId } }, body: {} }),
      ) as Promise<ExecutionAccepted>,
    onSuccess: () => client.invalidateQueries({ queryKey: workflowKeys.history(workflowId) }),
  });
}
