import { fuzzOpenApi } from '@platform/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(10);
});
afterAll(() => engine.stop());

const toOpenApi = (route: string) => route.replace(/\{(\w+)\}/g, '{$1}');

describe('the workflow engine API', () => {
  it('documents every workflow-engine row of endpoints.tsv in /openapi.json, protected by bearer tokens', async () => {
    const rows = readFileSync(path.join(__dirname, '../../../docs/spec/endpoints.tsv'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('workflow-engine\t'))
      .map((line) => line.split('\t').slice(1, 3));
    expect(rows.length).toBe(9);
    const doc = (await request(engine.app).get('/openapi.json')).body;
    expect(doc.info).toMatchObject({ title: 'Workflow Engine API', version: '0.1.0' });
    for (const [method, route] of rows) {
      if (route === '/api/health') continue;
      const verb = method === 'WS' ? 'get' : method.toLowerCase();
      expect([method, route, Boolean(doc.paths[toOpenApi(route)]?.[verb])]).toEqual([method, route, true]);
      expect(doc.paths[toOpenApi(route)][verb].security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('answers GET /api/health with spec 3 body from real counts', async () => {
    const health = await request(engine.app).get('/api/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'healthy',
      version: '0.1.0',
      flow_runtime: { status: 'running', version: '0.1.0' },
      executions: { active: expect.any(Number), queued: expect.any(Number), totalToday: expect.any(Number) },
      dependencies: { database: 'up', cache: 'up' },
    });
    const wf = await engine.createWorkflow({ nodes: [{ id: 'a', type: 'Merge', data: { inputs: [1] } }] });
    await engine.execute(wf.id, { options: { async: false } });
    const after = await request(engine.app).get('/api/health');
    expect(after.body.executions.totalToday).toBeGreaterThan(health.body.executions.totalToday);
    expect((await request(engine.app).get('/health/ready')).body.dependencies).toEqual({ database: 'up', cache: 'up' });
  });

  it('never answers a malformed request with a 5xx or an error outside the platform shape', async () => {
    const findings = await fuzzOpenApi(engine.app, { authorization: engine.auth(['*']) });
    expect(findings).toEqual([]);
  });
});
