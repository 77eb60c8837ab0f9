import { WorkersClient, type TokenSource } from '@platform/clients';
import type { workers } from '@platform/contracts';
import type { z } from 'zod';
import { bearerOf, probe, upstream } from './upstream';

export type WorkersWorkflow = z.input<typeof workers.StartWorkflowBody>;

export interface WorkersRun {
  /** The engine's word for the run's state (mapped onto the master's states by the caller). */
  state: string;
  steps: Array<{ id: string; state: string; output?: unknown; error?: string | null }>;
  error?: string | null;
}

/** What the master needs of the workers service, whose DAG engine runs orchestrations. */
export interface WorkersApi {
  submit(authorization: string | undefined, workflow: WorkersWorkflow): Promise<{ workflowId: string; state: string }>;
  /** The run's state and each step's, from `GET /workflows/{id}/dag`. */
  status(authorization: string | undefined, workflowId: string): Promise<WorkersRun>;
  ready(): Promise<boolean>;
}

/** Workers over `@platform/clients`, forwarding the caller's token (or the service's own). */
export class HttpWorkersApi implements WorkersApi {
  private readonly client: WorkersClient;

  constructor(private readonly options: { url: string; timeoutMs: number; token?: TokenSource }) {
    this.client = new WorkersClient({ baseUrl: options.url, timeoutMs: options.timeoutMs, token: options.token });
  }

  submit(authorization: string | undefined, workflow: WorkersWorkflow) {
    return upstream(async () => {
      const accepted = await this.client.submit(workflow, { bearer: bearerOf(authorization) });
      return { workflowId: accepted.workflow_id, state: accepted.state };
    });
  }

  status(authorization: string | undefined, workflowId: string): Promise<WorkersRun> {
    return upstream(async () => {
      const dag = await this.client.dag(workflowId, { bearer: bearerOf(authorization) });
      return { state: dag.state, error: dag.error, steps: dag.nodes.map((node) => ({ id: node.id, state: node.state, error: null })) };
    });
  }

  ready(): Promise<boolean> {
    return probe(`${this.options.url.replace(/\/$/, '')}/health`, this.options.timeoutMs);
  }
}
