import { MeshClient } from '@platform/clients';
import { spawnService, TestIssuer, uniqueName, type ServiceProcess } from '@platform/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../src/database';
import { runEnds, startRun, startWorkers, Target, traceOf, type Service } from './harness';

/**
 * Agent steps routed through a real mesh process (MESH_URL): the workers service asks the mesh's
 * routing for the agent's endpoint with its own service token (WORKERS_API_KEY exchanged at
 * AUTH_URL), then posts the task there.
 */
describe('agent steps routed through the mesh', () => {
  let issuer: TestIssuer;
  let mesh: ServiceProcess;
  let svc: Service;
  let auth: Server;
  const agent = new Target();
  const apiKey = uniqueName('workers-key');
  const exchanges: string[] = [];
  const agentId = uniqueName('summarizer');
  const capability = uniqueName('cap-summarize');

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    await agent.start();
    // The auth service's API-key exchange: the workers' key becomes a token with mesh:read.
    auth = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const key = (JSON.parse(body || '{}') as { api_key?: string }).api_key ?? '';
        exchanges.push(key);
        res.setHeader('content-type', 'application/json');
        if (req.url !== '/api/v1/auth/api-key' || key !== apiKey) return res.writeHead(401).end('{"error":{"message":"invalid api key"}}');
        const token = issuer.token({ sub: 'service:workers', permissions: ['mesh:read'] });
        res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, service: 'workers', permissions: ['mesh:read'] }));
      });
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    mesh = await spawnService('mesh', {
      env: {
        AUTH_URL: new URL(issuer.jwksUri).origin,
        AUTH_ISSUER: issuer.issuer,
        AUTH_AUDIENCE: issuer.audience,
        GRPC_PORT: '0',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        MESH_CLUSTER: uniqueName('workers'),
      },
      timeoutMs: 90_000,
    });
    // Registered under the workers' own identity: the mesh shows an agent only to its owner (and
    // its team, and mesh:admin), and the workers route with their service token.
    const admin = new MeshClient({ baseUrl: mesh.url, token: () => issuer.token({ sub: 'service:workers', permissions: ['mesh:read', 'mesh:write'] }) });
    await admin.register({ id: agentId, name: 'Summarizer', namespace: 'default', capabilities: [capability], endpoint: `${agent.url}/tasks` });
    svc = await startWorkers(issuer, {
      MESH_URL: mesh.url,
      AUTH_URL: `http://127.0.0.1:${(auth.address() as AddressInfo).port}`,
      WORKERS_API_KEY: apiKey,
    });
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
    await mesh?.stop();
    await agent.stop();
    auth?.close();
    await issuer?.stop();
  });

  it('posts the task to the endpoint the mesh routes the agent to, with the idempotency key, and stores its answer', async () => {
    agent.handlers.set('/tasks', (_req, res, body) => {
      const task = JSON.parse(body) as { task: { text: string } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ summary: task.task.text.toUpperCase() }));
    });
    const run = await startRun(
      svc,
      issuer,
      [
        { id: 'summarize', type: 'agent', agent: agentId, input: { text: '{{input.text}}' } },
        // A capability names the agents that offer it; the mesh's routing picks one.
        { id: 'again', type: 'agent', agent: capability, input: { text: '{{summarize.body.summary}}!' }, depends_on: ['summarize'] },
      ],
      { input: { text: 'hello mesh' } },
    );
    const dag = await runEnds(svc, issuer, run.workflow_id, undefined, 60_000);
    expect(dag.state).toBe('completed');

    const calls = agent.callsTo('/tasks');
    expect(calls).toHaveLength(2);
    expect([calls[0]!.idempotencyKey, calls[0]!.attempt]).toEqual([`${run.workflow_id}:summarize`, '1']);
    expect(JSON.parse(calls[0]!.body)).toEqual({
      task: { text: 'hello mesh' },
      agent: agentId,
      agent_id: agentId,
      workflow_id: run.workflow_id,
      step: 'summarize',
      attempt: 1,
      idempotency_key: `${run.workflow_id}:summarize`,
    });
    expect(JSON.parse(calls[1]!.body)).toMatchObject({ task: { text: 'HELLO MESH!' }, agent: capability, agent_id: agentId });
    const steps = await (svc.infra.db as Db).step.findMany({ where: { runId: run.workflow_id }, orderBy: { stepId: 'asc' } });
    expect(steps.map((step) => [step.stepId, step.state, (step.output as { body: unknown }).body])).toEqual([
      ['again', 'completed', { summary: 'HELLO MESH!' }],
      ['summarize', 'completed', { summary: 'HELLO MESH' }],
    ]);
    // The mesh was called with the workers' own token, obtained once from its API key.
    expect(exchanges).toEqual([apiKey]);
  }, 90_000);

  it('fails the step with a clear error when the mesh knows no such agent', async () => {
    const before = agent.calls.length;
    const run = await startRun(svc, issuer, [{ id: 'nobody', type: 'agent', agent: 'no-such-agent', input: {} }]);
    const dag = await runEnds(svc, issuer, run.workflow_id, undefined, 60_000);
    expect(dag.state).toBe('failed');
    expect(dag.error).toMatch(/nobody failed \(the mesh knows no routable agent or capability "no-such-agent"\)/);
    expect(agent.calls.length).toBe(before);
  }, 90_000);

  it('retries the step while the mesh is down, then fails it naming the mesh', async () => {
    await mesh.stop();
    const run = await startRun(svc, issuer, [{ id: 'ask', type: 'agent', agent: agentId, input: {}, retry: { maxAttempts: 2, initialDelay: 100 } }]);
    const dag = await runEnds(svc, issuer, run.workflow_id, undefined, 60_000);
    expect(dag.state).toBe('failed');
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.attempt, entry.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
    ]);
    for (const entry of trace.timeline) expect(entry.error).toMatch(/^mesh routing failed: mesh could not be reached at 127\.0\.0\.1:\d+/);
    expect(dag.error).toMatch(/ask failed \(mesh routing failed: mesh could not be reached/);
  }, 90_000);
});
