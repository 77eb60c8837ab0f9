import { z } from 'zod';
import { ServiceClient, type ClientOptions } from './service-client';

type Call = { bearer?: string; timeoutMs?: number; signal?: AbortSignal };

// The workers service's bodies (spec 3, "workflow orchestration workers"). They belong in
// `@platform/contracts` once the workers service publishes its own; until then they are read
// leniently here: the fields spec 3 names, and unknown ones kept.
export const WorkersStep = z.object({
  id: z.string(),
  type: z.enum(['http', 'agent', 'database']),
  url: z.string().optional(),
  agent: z.string().optional(),
  depends_on: z.array(z.string()),
  input: z.record(z.string(), z.unknown()).optional(),
});
export const WorkersWorkflowBody = z.object({ name: z.string(), steps: z.array(WorkersStep), input: z.record(z.string(), z.unknown()).optional() });
export type WorkersWorkflowBody = z.infer<typeof WorkersWorkflowBody>;
export const WorkersAccepted = z.looseObject({ workflow_id: z.string(), state: z.string().default('pending') });
export type WorkersAccepted = z.infer<typeof WorkersAccepted>;
const WorkersNode = z.looseObject({
  id: z.string(),
  state: z.string().optional(),
  status: z.string().optional(),
  output: z.unknown().optional(),
  error: z.string().nullable().optional(),
});
export const WorkersDag = z.looseObject({
  workflow_id: z.string().optional(),
  state: z.string().optional(),
  status: z.string().optional(),
  error: z.string().nullable().optional(),
  nodes: z.array(WorkersNode).optional(),
  steps: z.array(WorkersNode).optional(),
});
export type WorkersDag = z.infer<typeof WorkersDag>;

/** The workers service (`WORKERS_URL`, default port 3003): its DAG engine runs workflows. */
export class WorkersClient {
  readonly http: ServiceClient;

  constructor(options: Omit<ClientOptions, 'service'>) {
    this.http = new ServiceClient({ service: 'workers', ...options });
  }

  /** `POST /workflows`: 202 with `workflow_id` and state `pending`. Not retried (it would start two runs). */
  submit(workflow: WorkersWorkflowBody, call: Call = {}): Promise<WorkersAccepted> {
    return this.http.request('POST', '/api/v1/workflows', { ...call, body: workflow, schema: WorkersAccepted });
  }

  /** `GET /workflows/{id}/dag`: the graph with each step's state. */
  dag(workflowId: string, call: Call = {}): Promise<WorkersDag> {
    return this.http.request('GET', `/api/v1/workflows/${encodeURIComponent(workflowId)}/dag`, { ...call, schema: WorkersDag });
  }

  /** `POST /workflows/{id}/cancel`. */
  cancel(workflowId: string, call: Call = {}): Promise<unknown> {
    return this.http.request('POST', `/api/v1/workflows/${encodeURIComponent(workflowId)}/cancel`, { ...call, idempotent: true });
  }
}
