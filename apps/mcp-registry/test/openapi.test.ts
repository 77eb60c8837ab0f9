import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';

/** The mcp-registry rows of spec/endpoints.tsv, as served (a copy, for checkouts without ../shared). */
const SPEC_ROWS = `GET /connections
POST /connections
GET /connections/{connectionId}
PATCH /connections/{connectionId}
DELETE /connections/{connectionId}
POST /connections/discover
GET /capabilities
POST /connections/{connectionId}/health-check
POST /connections/health-check/batch
GET /registry/stats
GET /registry/export
GET /load-balancing/distribution
POST /cms/sync
GET /health
WS /registry/stream`;

function specRows(): Array<[string, string]> {
  const tsv = path.resolve(__dirname, '../../../docs/spec/endpoints.tsv');
  const lines = existsSync(tsv)
    ? readFileSync(tsv, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('mcp-registry\t'))
        .map((line) => line.split('\t').slice(1).join(' '))
    : SPEC_ROWS.split('\n');
  return lines.map((line) => line.split(' ') as [string, string]);
}

describe('the OpenAPI document', () => {
  let h: Harness;
  let doc: { paths: Record<string, Record<string, { 'x-websocket'?: boolean; security?: unknown }>> };

  beforeAll(async () => {
    h = await startHarness();
    doc = (await request(h.url).get('/openapi.json')).body;
  });
  afterAll(() => h.stop());

  it('documents every mcp-registry endpoint of the spec', () => {
    const rows = specRows();
    expect(rows.length).toBeGreaterThanOrEqual(15);
    const missing = rows.filter(([method, route]) => {
      if (route === '/health') return false; // served by the service kit, outside the API routers
      const operation = doc.paths[route]?.[method === 'WS' ? 'get' : method.toLowerCase()];
      return !operation || (method === 'WS' && operation['x-websocket'] !== true);
    });
    expect(missing).toEqual([]);
  });

  it('serves every documented route (none answers route_not_found)', async () => {
    for (const [method, route] of specRows()) {
      if (method === 'WS') continue;
      const url = route.replace('{connectionId}', '00000000-0000-4000-8000-000000000000');
      const res = await request(h.url)[method.toLowerCase() as 'get'](url).set('Authorization', h.admin).send({});
      expect([method, route, res.body?.error?.code]).not.toEqual([method, route, 'route_not_found']);
      expect(res.status).toBeLessThan(500);
    }
  });
});
