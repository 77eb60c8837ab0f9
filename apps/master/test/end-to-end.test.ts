import { eventually, listenLocally, spawnService, TestIssuer, uniqueName, type ServiceProcess } from '@platform/testing';
import express from 'express';
import http from 'node:http';
import request from 'supertest';
import { createAgent, goodSecurity, manifest, startMaster, TEST_USER, type Master } from './harness';

/**
 * An orchestration executed end to end: the master hands the DAG to a real workers process (its
 * own engine, queues and database schema), whose agent steps call agents' task endpoints (a small
 * agent server in the test); the master mirrors the run from workers.
 */
describe('orchestration end to end on the workers service', () => {
  let issuer: TestIssuer;
  let workers: ServiceProcess;
  let h: Master;
  let agentServer: http.Server;
  let agentUrl: string;
  const tasks: Array<{ agent: string; task: unknown }> = [];

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    const app = express();
    app.use(express.json());
    app.post('/tasks', (req, res) => {
      tasks.push({ agent: req.body.agent, task: req.body.task });
      res.json(
        req.body.agent.endsWith('/researcher') ? { notes: `notes on ${req.body.task.topic}` } : { article: `${req.body.task.title}: ${req.body.task.notes}` },
      );
    });
    agentServer = http.createServer(app);
    agentUrl = `${await listenLocally(agentServer)}/tasks`;
    workers = await spawnService('workers', {
      env: {
        AUTH_URL: new URL(issuer.jwksUri).origin,
        AUTH_ISSUER: issuer.issuer,
        AUTH_AUDIENCE: issuer.audience,
        WORKERS_ALLOW_PRIVATE_URLS: 'true',
        WORKERS_QUEUE: `workers.steps-${uniqueName('e2e')}`,
        LOG_LEVEL: 'info',
      },
    });
    h = await startMaster({ WORKERS_URL: workers.url }, issuer);
  }, 90_000);
  afterAll(async () => {
    await h?.stop();
    await workers?.stop();
    await new Promise((resolve) => agentServer?.close(resolve));
    await issuer.stop();
  });

  it('runs a two-agent workflow on workers and mirrors each step until completed', async () => {
    const namespace = uniqueName('e2e');
    const researcher = await createAgent(h, {
      ...manifest({ namespace, name: 'researcher', security: goodSecurity([]) }),
      spec: { role: 'research', endpoint: agentUrl },
    });
    const writer = await createAgent(h, {
      ...manifest({ namespace, name: 'writer', security: goodSecurity([]) }),
      spec: { role: 'write', endpoint: agentUrl },
    });
    // The same user declares the agents and runs the workflow: a step may use only an agent its workflow's caller may read.
    const auth = issuer.bearer(['orchestration:*', 'workflows:read', 'workflows:write'], { sub: TEST_USER });
    const workflow = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', auth)
      .send({
        name: `e2e-${namespace}`,
        steps: [
          { id: 'research', agentId: researcher.id, inputs: { topic: '{{input.topic}}' } },
          { id: 'write', agentId: writer.id, dependsOn: ['research'], inputs: { notes: '{{steps.research.output.notes}}', title: 'Tides' } },
        ],
      });
    expect(workflow.status).toBe(201);
    const accepted = await request(h.app)
      .post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`)
      .set('Authorization', auth)
      .send({ inputs: { topic: 'tides' } });
    expect(accepted.status).toBe(202);
    expect(accepted.body.state).toBe('pending');
    const done = await eventually(
      async () => {
        const res = await request(h.app).get(`/api/v1/orchestration/executions/${accepted.body.id}`).set('Authorization', auth);
        return ['completed', 'failed', 'cancelled'].includes(res.body.state) ? res.body : undefined;
      },
      30_000,
      200,
    );
    expect(done).toMatchObject({ state: 'completed', completedAt: expect.any(String) });
    expect(done.steps.map((step: { id: string; state: string }) => `${step.id} ${step.state}`)).toEqual(['research completed', 'write completed']);
    // The engine filled the writer's input from the researcher's output.
    expect(tasks.filter((task) => task.agent.startsWith(namespace))).toEqual([
      { agent: `${namespace}/researcher`, task: { topic: 'tides' } },
      { agent: `${namespace}/writer`, task: { notes: 'notes on tides', title: 'Tides' } },
    ]);
    // Once finished, the agents are free to go.
    expect(
      (
        await request(h.app)
          .delete(`/api/v1/agents/${writer.id}`)
          .set('Authorization', issuer.bearer(['agents:write'], { sub: TEST_USER }))
      ).status,
    ).toBe(204);
  });
});
