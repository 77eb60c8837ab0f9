import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startGateway, type Gateway } from './harness';

/** The gateway rows of docs/spec/endpoints.tsv. */
const GATEWAY_ROWS = readFileSync(path.join(__dirname, '../../../docs/spec/endpoints.tsv'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('gateway\t'))
  .map((line) => line.split('\t').slice(1, 3) as [string, string]);

describe('the gateway OpenAPI document', () => {
  let g: Gateway;
  let doc: {
    openapi: string;
    info: { version: string; title: string };
    paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
  };
  beforeAll(async () => {
    g = await startGateway();
    doc = (await request(g.app).get('/openapi.json')).body;
  });
  afterAll(() => g.stop());

  it('is OpenAPI 3.1 for the Gateway API 1.0.0', () => {
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.info).toMatchObject({ title: 'Gateway API', version: '1.0.0' });
  });

  it('documents every gateway row of endpoints.tsv, each protected', () => {
    expect(GATEWAY_ROWS).toHaveLength(21);
    for (const [method, route] of GATEWAY_ROWS) {
      const operation = doc.paths[route]?.[method.toLowerCase()];
      expect({ route: `${method} ${route}`, documented: Boolean(operation) }).toEqual({ route: `${method} ${route}`, documented: true });
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
  });

  it('answers every row: 401 without credentials, never 404 or 5xx', async () => {
    for (const [method, route] of GATEWAY_ROWS) {
      const concrete = route.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const answer = await request(g.app)[method.toLowerCase() as 'get'](concrete);
      expect({ route: `${method} ${route}`, status: answer.status }).toEqual({ route: `${method} ${route}`, status: 401 });
      expect(answer.headers['x-ratelimit-limit']).toBe('1500');
    }
  });
});
