import { ApiError } from '@platform/http';
import { probe } from './registry-api';
import { callService, passOn } from './upstream';

/** A workflow as the workers service takes it (spec 3: `POST /api/v1/workflows`). */
export interface WorkersWorkflow {
  name: string;
  steps: Array<{ id: string; type: 'agent'; agent: string; depends_on: string[]; input: Record<string, unknown> }>;
}

export interface WorkersRun {
  /** pending, running, completed, failed, cancelled (other words are mapped onto these). */
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

type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export class HttpWorkersApi implements WorkersApi {
  constructor(private readonly options: { url: string; timeoutMs: number }) {}

  private api(path: string): string {
    return `${this.options.url.replace(/\/$/, '')}/api/v1${path}`;
  }

  async submit(authorization: string | undefined, workflow: WorkersWorkflow) {
    const answer = await callService('workers', this.api('/workflows'), { method: 'POST', authorization, body: workflow, timeoutMs: this.options.timeoutMs });
    if (answer.status !== 202 && answer.status !== 201 && answer.status !== 200) throw passOn('workers', answer);
    const body = object(answer.body);
    const workflowId = text(body.workflow_id) ?? text(body.id);
    if (!workflowId) throw new ApiError(502, 'api_error', 'upstream_error', 'The workers service answered without a workflow_id', { dependency: 'workers' });
    return { workflowId, state: text(body.state) ?? text(body.status) ?? 'pending' };
  }

  async status(authorization: string | undefined, workflowId: string): Promise<WorkersRun> {
    const answer = await callService('workers', this.api(`/workflows/${encodeURIComponent(workflowId)}/dag`), {
      authorization,
      timeoutMs: this.options.timeoutMs,
    });
    if (answer.status !== 200) throw passOn('workers', answer);
    const body = object(answer.body);
    const nodes = Array.isArray(body.nodes) ? body.nodes : Array.isArray(body.steps) ? body.steps : [];
    return {
      state: text(body.state) ?? text(body.status) ?? 'pending',
      error: text(body.error) ?? null,
      steps: nodes.map((node) => {
        const step = object(node);
        return { id: text(step.id) ?? '', state: text(step.state) ?? text(step.status) ?? 'pending', output: step.output, error: text(step.error) ?? null };
      }),
    };
  }

  ready(): Promise<boolean> {
    return probe(`${this.options.url.replace(/\/$/, '')}/health`, this.options.timeoutMs);
  }
}
