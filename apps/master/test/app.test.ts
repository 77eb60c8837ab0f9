import { fuzzOpenApi, uniqueName } from '@platform/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createAgent, manifest, startMaster, type Master } from './harness';

/** Every `master` row of docs/spec/endpoints.tsv. */
const MASTER_ROWS = readFileSync(path.join(__dirname, '../../../docs/spec/endpoints.tsv'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('master\t'))
  .map((line) => line.split('\t').slice(1, 3) as [string, string]);

describe('the master app', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster();
  });
  afterAll(() => h.stop());

  it('documents every master endpoint of endpoints.tsv in its OpenAPI 3.1 document', async () => {
    expect(MASTER_ROWS).toHaveLength(23);
    const doc = (await request(h.app).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Master API', version: '0.1.9' });
    for (const [method, route] of MASTER_ROWS) {
      if (route.startsWith('/health')) {
        expect([route, (await request(h.app).get(route)).status]).toEqual([route, 200]);
        continue;
      }
      const operation = doc.paths[route]?.[method.toLowerCase()];
      expect([method, route, Boolean(operation)]).toEqual([method, route, true]);
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
    }
    const agentParams = doc.paths['/api/v1/agents'].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(agentParams).toEqual(expect.arrayContaining(['type', 'capability', 'status', 'q', 'sort', 'limit', 'offset']));
    expect(doc.paths['/api/v1/specification/capabilities'].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['category']);
  });

  it('reports health per spec 2, with readiness probing Postgres and Redis and the services it composes', async () => {
    const health = await request(h.app).get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'healthy',
      version: '0.1.9',
      dependencies: { database: 'up', cache: 'up' },
      services: { registry: 'down', workers: 'down' },
    });
    expect(Number.isInteger(health.body.uptime)).toBe(true);
    expect((await request(h.app).get('/health/ready')).body.dependencies).toEqual({ database: 'up', cache: 'up' });
    expect((await request(h.app).get('/health/live')).body.status).toBe('healthy');
  });

  it('answers unknown routes with route_not_found', async () => {
    const res = await request(h.app).get('/api/v1/nothing').set('Authorization', h.auth());
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });

  it('gathers platform metrics', async () => {
    await createAgent(h, manifest({ namespace: uniqueName('metrics') }));
    const res = await request(h.app)
      .get('/api/v1/monitoring/metrics')
      .set('Authorization', h.auth(['monitoring:read']));
    expect(res.status).toBe(200);
    expect(res.body.agents.total).toBeGreaterThan(0);
    expect(res.body.agents.byStatus.active).toBeGreaterThan(0);
    expect(res.body).toMatchObject({
      executions: { total: expect.any(Number), byState: expect.any(Object) },
      certifications: { total: expect.any(Number) },
      federation: { peers: expect.any(Number) },
      dependencies: { database: 'up', cache: 'up', registry: 'down', workers: 'down' },
    });
    expect(Object.keys(res.body.queues)).toEqual(['master.federation-sync', 'master.execution-sync']);
    expect(
      (
        await request(h.app)
          .get('/api/v1/monitoring/metrics')
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(403);
  });

  it('lists events filtered by type and time, newest first, paged', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const a = await createAgent(h, manifest({ namespace: uniqueName('events') }));
    const b = await createAgent(h, manifest({ namespace: uniqueName('events') }));
    await request(h.app)
      .delete(`/api/v1/agents/${a.id}`)
      .set('Authorization', h.auth(['agents:write']));
    const read = (query: string) =>
      request(h.app)
        .get(`/api/v1/monitoring/events?${query}`)
        .set('Authorization', h.auth(['monitoring:read']));
    const created = await read(`type=agent.created&from=${encodeURIComponent(before)}&limit=500`);
    expect(created.status).toBe(200);
    const subjects = created.body.items.map((event: { subject: string }) => event.subject);
    expect(subjects.indexOf(b.id)).toBeLessThan(subjects.indexOf(a.id));
    expect(created.body.items.every((event: { type: string }) => event.type === 'agent.created')).toBe(true);
    const family = await read(`type=agent.*&from=${encodeURIComponent(before)}&limit=500`);
    expect(family.body.items.filter((event: { subject: string }) => event.subject === a.id).map((event: { type: string }) => event.type)).toEqual([
      'agent.deleted',
      'agent.created',
    ]);
    const future = await read(`from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body).toMatchObject({ items: [], total: 0 });
    const page = await read('limit=1&offset=1');
    expect(page.body).toMatchObject({ limit: 1, offset: 1 });
    expect(page.body.items).toHaveLength(1);
    for (const bad of ['type=Agent%20Created', 'from=yesterday', 'limit=1000', 'colour=red']) expect([bad, (await read(bad)).status]).toEqual([bad, 400]);
    expect((await request(h.app).get('/api/v1/monitoring/events')).status).toBe(401);
  });

  it('answers malformed input on every operation with a 4xx in the platform shape, never a 500', async () => {
    const findings = await fuzzOpenApi(h.app, { authorization: h.auth(['*']) });
    expect(findings).toEqual([]);
  }, 120_000);
});

describe('BASE_PATH', () => {
  it('mounts the API at the root when empty, as the local development server does', async () => {
    const h = await startMaster({ BASE_PATH: '' });
    try {
      expect((await request(h.app).get('/specification/taxonomies').set('Authorization', h.auth())).status).toBe(200);
      expect((await request(h.app).get('/api/v1/specification/taxonomies').set('Authorization', h.auth())).status).toBe(404);
      const doc = (await request(h.app).get('/openapi.json')).body;
      expect(doc.paths['/agents/{agentId}']).toBeDefined();
    } finally {
      await h.stop();
    }
  });

  it('mounts the API under another prefix and refuses a malformed one', async () => {
    const h = await startMaster({ BASE_PATH: '/master/v1' });
    try {
      expect((await request(h.app).get('/master/v1/agents').set('Authorization', h.auth())).status).toBe(200);
    } finally {
      await h.stop();
    }
    await expect(startMaster({ BASE_PATH: 'api/' })).rejects.toThrow(/BASE_PATH/);
  });
});
