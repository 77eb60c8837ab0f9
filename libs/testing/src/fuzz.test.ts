import { ApiRouter, createServiceApp } from '@platform/http';
import { createLogger } from '@platform/telemetry';
import { z } from 'zod';
import { fuzzOpenApi } from './fuzz';
import { TestIssuer } from './test-issuer';

describe('fuzzOpenApi', () => {
  const issuer = new TestIssuer();
  beforeAll(() => issuer.start());
  afterAll(() => issuer.stop());

  const app = (careless: boolean) => {
    const api = new ApiRouter(issuer.verifier())
      .route({
        method: 'post',
        path: '/things/:id',
        summary: 'Create',
        access: { permission: 'things:write' },
        params: z.object({ id: z.string().max(64) }),
        query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
        body: z.object({ name: z.string().max(100), size: z.number().int() }),
        responses: { 201: { description: 'Created' } },
        handler: (req) => ({ id: req.valid.params.id, name: req.valid.body.name }),
      })
      .route({
        method: 'get',
        path: '/search',
        summary: 'A careless handler that trusts its query',
        access: 'public',
        query: z.object({ q: z.string().optional() }),
        responses: { 200: { description: 'Found' } },
        handler: (req) => {
          if (careless && req.valid.query.q && req.valid.query.q.length > 1000) throw new Error('index row size exceeds maximum');
          return { results: [] };
        },
      });
    return createServiceApp({
      name: 'fuzz-test',
      logger: createLogger('fuzz-test', '0', 'silent'),
      openapi: { title: 'Fuzz', version: '1' },
      health: { checks: {} },
      routers: [{ basePath: '/api', router: api }],
    });
  };

  it('finds nothing wrong with routes that validate their input', async () => {
    expect(await fuzzOpenApi(app(false), { authorization: issuer.bearer(['*']) })).toEqual([]);
  });

  it('reports the request that made a route answer 500', async () => {
    const findings = await fuzzOpenApi(app(true), { authorization: issuer.bearer(['*']) });
    expect(findings).toEqual([expect.objectContaining({ method: 'get', path: '/api/search', case: 'query q: very long value', status: 500 })]);
  });
});
