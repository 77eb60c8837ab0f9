import { manifestJsonSchema, SCHEMA_VERSION } from '@platform/manifest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startRegistry, type Harness } from './fixtures';

/** The registry rows of ../shared/spec/endpoints.tsv (compared with the file when it is there). */
const REGISTRY_ROWS = [
  ['GET', '/api/v1/agents'],
  ['POST', '/api/v1/agents'],
  ['GET', '/api/v1/agents/{namespace}/{name}'],
  ['PUT', '/api/v1/agents/{namespace}/{name}'],
  ['DELETE', '/api/v1/agents/{namespace}/{name}'],
  ['GET', '/api/v1/agents/{namespace}/{name}/versions'],
  ['POST', '/api/v1/agents/{namespace}/{name}/versions'],
  ['GET', '/api/v1/agents/{namespace}/{name}/versions/{version}'],
  ['DELETE', '/api/v1/agents/{namespace}/{name}/versions/{version}'],
  ['GET', '/api/v1/agents/{namespace}/{name}/versions/{version}/manifest'],
  ['GET', '/api/v1/search'],
  ['GET', '/api/v1/certifications'],
  ['POST', '/api/v1/certifications/{namespace}/{name}/request'],
  ['GET', '/api/v1/analytics/{namespace}/{name}'],
] as const;

describe('the registry app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it('documents every registry endpoint of endpoints.tsv in its OpenAPI 3.1 document', async () => {
    const tsvPath = path.join(__dirname, '../../../docs/spec/endpoints.tsv');
    if (existsSync(tsvPath)) {
      const fromTsv = readFileSync(tsvPath, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('registry\t'))
        .map((line) => line.split('\t').slice(1, 3).join(' '));
      expect(fromTsv.sort()).toEqual(REGISTRY_ROWS.map((row) => row.join(' ')).sort());
    }
    const rows = REGISTRY_ROWS.map(([method, route]) => [method.toLowerCase(), route] as const);
    const doc = (await request(h.app).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Registry API', version: '1.0.0' });
    for (const [method, route] of rows) {
      expect([method, route, Boolean(doc.paths[route]?.[method])]).toEqual([method, route, true]);
      if (!route.startsWith('/api/v1/schemas')) expect(doc.paths[route][method].security).toEqual([{ bearerAuth: [] }]);
    }
    expect(doc.paths['/api/v1/agents'].post.requestBody).toBeDefined();
    const searchParams = doc.paths['/api/v1/search'].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(searchParams).toEqual(expect.arrayContaining(['q', 'filters', 'namespace', 'certified', 'compliance', 'limit', 'offset']));
    expect(doc.paths['/api/v1/agents/{namespace}/{name}/versions/{version}/manifest'].get.responses['200'].content).toHaveProperty('application/yaml');
  });

  it('publishes the manifest JSON Schema at stable public URLs', async () => {
    const exact = await request(h.app).get(`/api/v1/schemas/manifest/${SCHEMA_VERSION}.json`);
    expect(exact.status).toBe(200);
    expect(exact.headers['content-type']).toMatch(/^application\/schema\+json/);
    const body = JSON.parse(exact.text);
    expect(body.$id).toBe(`http://registry.test/api/v1/schemas/manifest/${SCHEMA_VERSION}.json`);
    expect(body.properties).toEqual((manifestJsonSchema() as { properties: unknown }).properties);
    const latest = await request(h.app).get('/api/v1/schemas/manifest/latest.json');
    expect(JSON.parse(latest.text)).toEqual(body);
    const unknown = await request(h.app).get('/api/v1/schemas/manifest/0.1.0.json');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('reports readiness from the real Postgres and Redis', async () => {
    const ready = await request(h.app).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.dependencies).toEqual({ database: 'up', cache: 'up' });
  });

  it('answers unknown routes with route_not_found', async () => {
    const res = await request(h.app).get('/api/v1/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });
});

describe('rate limiting', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry({ rateLimit: 2 });
  });
  afterAll(() => h.stop());

  it('applies the agent-service limit per caller with X-RateLimit headers and 429 past it', async () => {
    const { auth } = h.user(['registry:read']);
    const first = await request(h.app).get('/api/v1/agents?limit=1').set('Authorization', auth);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    await request(h.app).get('/api/v1/agents?limit=1').set('Authorization', auth);
    const limited = await request(h.app).get('/api/v1/agents?limit=1').set('Authorization', auth);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
    expect(
      (
        await request(h.app)
          .get('/api/v1/agents?limit=1')
          .set('Authorization', h.user(['registry:read']).auth)
      ).status,
    ).toBe(200);
  });
});
