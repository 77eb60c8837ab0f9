import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fuzzOpenApi, type FuzzFinding } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness';

/** The local-models rows of docs/spec/endpoints.tsv (a copy, for checkouts without docs/). */
const SPEC_ROWS = `POST /invoke
GET /tools
POST /api/generate
GET /api/tags
GET /health`;

function specRows(): Array<[string, string]> {
  const tsv = path.resolve(__dirname, '../../../docs/spec/endpoints.tsv');
  const lines = existsSync(tsv)
    ? readFileSync(tsv, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('local-models\t'))
        .map((line) => line.split('\t').slice(1).join(' '))
    : SPEC_ROWS.split('\n');
  return lines.map((line) => line.split(' ') as [string, string]);
}

describe('the OpenAPI document', () => {
  let h: Harness;
  let doc: { paths: Record<string, Record<string, { security?: unknown }>> };

  beforeAll(async () => {
    h = await startHarness({ ollama: false });
    doc = (await request(h.url).get('/openapi.json')).body;
  });
  afterAll(() => h.stop());

  it("documents every local-models endpoint of the spec, and Ollama's chat and embed", () => {
    const rows = specRows();
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const missing = rows.filter(([method, route]) => route !== '/health' && !doc.paths[route]?.[method.toLowerCase()]);
    expect(missing).toEqual([]);
    expect(doc.paths['/api/chat']?.post?.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/embed']?.post).toBeDefined();
  });

  it('serves every row of the spec (none answers route_not_found)', async () => {
    for (const [method, route] of specRows()) {
      const res = await request(h.url)[method.toLowerCase() as 'get'](route).set('Authorization', h.user).send({});
      expect([method, route, res.body?.error?.code]).not.toEqual([method, route, 'route_not_found']);
      expect(res.status).toBeLessThan(500);
    }
  });

  it("answers malformed requests to every operation with 4xx in the route's error shape, never 5xx", async () => {
    // The Ollama routes answer Ollama's `{"error": "<text>", code, ...}` and `/v1` OpenAI's
    // `{"error": {message, type, code, param}}`; the others the platform's shape, as the fuzzer expects.
    const ownShape = (finding: FuzzFinding) =>
      finding.status >= 400 &&
      finding.status < 500 &&
      ((finding.path.startsWith('/api/') && /^\{"error":".*","type":"[a-z_]+","code":"[a-z_]+"/.test(finding.body)) ||
        (finding.path.startsWith('/v1/') && /^\{"error":\{"message":".*","type":"[a-z_]+","code":"[a-z_]+","param":/.test(finding.body)));
    const findings = await fuzzOpenApi(h.service.app, { authorization: h.issuer.bearer(['*']) });
    expect(findings.filter((finding) => !ownShape(finding))).toEqual([]);
    expect(findings.filter(ownShape).length).toBeGreaterThan(0);
  });
});
