import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SubmittedWorkflow {
  body: { name: string; steps: Array<{ id: string; type: string; agent: string; depends_on: string[]; input: Record<string, unknown> }> };
  authorization?: string;
}

/**
 * A small stand-in for the workers service's API (spec 3): `POST /api/v1/workflows` answers 202
 * with `workflow_id` and state `pending`; `GET /api/v1/workflows/{id}/dag` reports the run as the
 * test sets it. Used while the workers service is not on this branch.
 */
export async function startFakeWorkers() {
  const submitted = new Map<string, SubmittedWorkflow>();
  const runs = new Map<string, { state: string; nodes: Array<{ id: string; state: string; output?: unknown }> }>();
  let refuse: number | undefined;
  let counter = 0;
  const app = express();
  app.use(express.json());
  app.get('/health', (_req, res) => void res.json({ status: 'healthy' }));
  app.post('/api/v1/workflows', (req, res) => {
    if (refuse)
      return void res.status(refuse).json({ error: { type: 'authorization_error', code: 'insufficient_permissions', message: 'workflows:write required' } });
    const id = `wf-${++counter}`;
    submitted.set(id, { body: req.body, authorization: req.headers.authorization });
    runs.set(id, { state: 'pending', nodes: req.body.steps.map((step: { id: string }) => ({ id: step.id, state: 'pending' })) });
    res.status(202).json({ workflow_id: id, state: 'pending' });
  });
  app.get('/api/v1/workflows/:id/dag', (req, res) => {
    const run = runs.get(req.params.id);
    if (!run) return void res.status(404).json({ error: { type: 'not_found_error', code: 'not_found', message: 'no such workflow' } });
    res.json({ workflow_id: req.params.id, state: run.state, nodes: run.nodes });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    submitted,
    /** Sets a run's state and its steps' (by id). */
    set(id: string, state: string, steps: Record<string, { state: string; output?: unknown }> = {}) {
      const run = runs.get(id)!;
      run.state = state;
      run.nodes = run.nodes.map((node) => ({ ...node, ...steps[node.id] }));
    },
    refuse(status: number | undefined) {
      refuse = status;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
