import express from 'express';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenClaims {
  sub?: string;
  act?: { sub: string; client_id?: string };
  permissions?: string[];
  teams?: Array<{ id: string; role: 'viewer' | 'editor' | 'admin' }>;
}

/** The claims of a bearer token, unverified: the fakes only report whose token they were sent. */
export function claimsOf(authorization: string | undefined): SeenClaims {
  const payload = authorization?.replace(/^Bearer\s+/i, '').split('.')[1];
  return payload ? JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) : {};
}

export interface SubmittedWorkflow {
  body: { name: string; steps: Array<{ id: string; type: string; agent: string; depends_on: string[]; input: Record<string, unknown> }> };
  authorization?: string;
}

/**
 * A small stand-in for the workers service's API (spec 3, bodies of `@platform/contracts` workers):
 * `POST /api/v1/workflows` answers 202 with the run (`workflow_id`, state `pending`);
 * `GET /api/v1/workflows/{id}/dag` reports the run as the test sets it. It lets the master's own
 * tests set any state, refuse a caller, or be down; end-to-end.test.ts runs the real service.
 */
export async function startFakeWorkers() {
  const submitted = new Map<string, SubmittedWorkflow>();
  const runs = new Map<
    string,
    { state: string; nodes: Array<{ id: string; task_id: string; type: string; state: string; attempt: number; depends_on: string[] }> }
  >();
  let refuse: number | undefined;
  const app = express();
  app.use(express.json());
  app.get('/health', (_req, res) => void res.json({ status: 'healthy' }));
  app.post('/api/v1/workflows', (req, res) => {
    if (refuse)
      return void res.status(refuse).json({ error: { type: 'authorization_error', code: 'insufficient_permissions', message: 'workflows:write required' } });
    const id = randomUUID();
    submitted.set(id, { body: req.body, authorization: req.headers.authorization });
    const nodes = req.body.steps.map((step: { id: string; depends_on: string[] }) => ({
      id: step.id,
      task_id: randomUUID(),
      type: 'agent',
      state: 'waiting',
      attempt: 0,
      depends_on: step.depends_on,
    }));
    runs.set(id, { state: 'pending', nodes });
    res.status(202).json({
      workflow_id: id,
      name: req.body.name,
      version: 1,
      state: 'pending',
      error: null,
      blocked_steps: [],
      trace_id: '0'.repeat(32),
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      pinned: false,
      steps: nodes.length,
      // As workers records it: the run belongs to the subject of the token it was started with.
      owner: claimsOf(req.headers.authorization).sub ?? null,
      team: null,
    });
  });
  app.get('/api/v1/workflows/:id/dag', (req, res) => {
    const run = runs.get(req.params.id);
    if (!run) return void res.status(404).json({ error: { type: 'not_found_error', code: 'not_found', message: 'no such workflow' } });
    res.json({ workflow_id: req.params.id, state: run.state, error: null, blocked_steps: [], nodes: run.nodes, edges: [] });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    submitted,
    /** Sets a run's state and its steps' (by id). */
    set(id: string, state: string, steps: Record<string, { state: string }> = {}) {
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
