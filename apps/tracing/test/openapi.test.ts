import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startTracing, type Harness } from './harness';

/** Every `tracing` row of docs/spec/endpoints.tsv, as OpenAPI paths. */
function tracingRows(): Array<[string, string]> {
  return readFileSync(path.join(__dirname, '../../../docs/spec/endpoints.tsv'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('tracing\t'))
    .map((line) => {
      const [, method, route] = line.split('\t');
      return [method.toLowerCase(), route] as [string, string];
    });
}

describe('the tracing app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTracing();
  });
  afterAll(() => h.stop());

  it('documents every tracing endpoint of endpoints.tsv in its OpenAPI 3.1 document', async () => {
    const doc = (await request(h.url).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Tracing API', version: '1.0.0' });
    const rows = tracingRows();
    expect(rows.length).toBeGreaterThanOrEqual(25);
    for (const [method, route] of rows) {
      if (route === '/health' || route === '/api/health') continue;
      expect([method, route, Boolean(doc.paths[route]?.[method])]).toEqual([method, route, true]);
      expect(doc.paths[route][method].security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('answers /health and /api/health with the standard body, probing Postgres and Redis', async () => {
    for (const route of ['/health', '/api/health']) {
      const res = await request(h.url).get(route);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'healthy', version: '1.0.0', dependencies: { database: 'up', cache: 'up' }, ingest: { buffer_depth: 0 } });
    }
  });

  it('refuses every API endpoint without a token (401) and with a token lacking its permission (403)', async () => {
    const doc = (await request(h.url).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const sample: Record<string, string> = {
      trace_id: 'a'.repeat(32),
      project: 'p',
      eval_id: '00000000-0000-4000-8000-000000000000',
      projection_id: '00000000-0000-4000-8000-000000000000',
      dataset_id: '00000000-0000-4000-8000-000000000000',
    };
    let checked = 0;
    for (const [route, methods] of Object.entries(doc.paths)) {
      if (!route.startsWith('/api/')) continue;
      const path = route.replace(/\{(\w+)\}/g, (_, name: string) => sample[name]);
      for (const method of Object.keys(methods) as Array<'get' | 'post' | 'put' | 'delete'>) {
        const anonymous = await request(h.url)[method](path);
        expect([method, route, anonymous.status, anonymous.body.error?.type]).toEqual([method, route, 401, 'authentication_error']);
        const client = request(h.url);
        const unrelated = await client[method](path).set('Authorization', h.bearer(['registry:read']));
        expect([method, route, unrelated.status, unrelated.body.error?.code]).toEqual([method, route, 403, 'insufficient_permissions']);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25);
  });

  it('answers unknown routes with route_not_found', async () => {
    const res = await request(h.url)
      .get('/api/nothing')
      .set('Authorization', h.bearer(['traces:read']));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });
});
