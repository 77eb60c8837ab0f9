import { workers } from '@platform/contracts';
import type { z } from 'zod';
import { ServiceClient, type ClientOptions } from './service-client';

type Call = { bearer?: string; timeoutMs?: number; signal?: AbortSignal };

/** The workers service (`WORKERS_URL`, default port 3003): its DAG engine runs workflows. */
export class WorkersClient {
  readonly http: ServiceClient;

  constructor(options: Omit<ClientOptions, 'service'>) {
    this.http = new ServiceClient({ service: 'workers', ...options });
  }

  /** `POST /workflows`: 202 with the run (`workflow_id`, state `pending`). Not retried (it would start two runs). */
  submit(body: z.input<typeof workers.StartWorkflowBody>, call: Call = {}): Promise<z.infer<typeof workers.StartedRun>> {
    return this.http.request('POST', '/api/v1/workflows', { ...call, body, schema: workers.StartedRun });
  }

  /** `GET /workflows/{id}/dag`: the run's state and each step's. */
  dag(workflowId: string, call: Call = {}): Promise<z.infer<typeof workers.Dag>> {
    return this.http.request('GET', `/api/v1/workflows/${encodeURIComponent(workflowId)}/dag`, { ...call, schema: workers.Dag });
  }

  /** `POST /workflows/{id}/cancel`. */
  cancel(workflowId: string, call: Call = {}): Promise<unknown> {
    return this.http.request('POST', `/api/v1/workflows/${encodeURIComponent(workflowId)}/cancel`, { ...call, idempotent: true });
  }
}
