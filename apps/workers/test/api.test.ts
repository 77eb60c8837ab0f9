import { fuzzOpenApi, TestIssuer } from '@platform/testing';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ALL, startWorkers, type Service } from './harness';

/** The workers rows of docs/spec/endpoints.tsv, with the permission each one needs. */
const ROWS: Array<[string, string, string | null]> = [
  ['GET', '/health', null],
  ['GET', '/api/v1/health', null],
  ['POST', '/api/v1/workflows', 'workflows:write'],
  ['POST', '/api/v1/workflows/{workflow_id}/retry', 'workflows:write'],
  ['POST', '/api/v1/workflows/{workflow_id}/cancel', 'workflows:write'],
  ['POST', '/api/v1/workflows/{workflow_id}/pin', 'workflows:admin'],
  ['GET', '/api/v1/workflows/{workflow_id}/dag', 'workflows:read'],
  ['GET', '/api/v1/workflows/{workflow_id}/trace', 'workflows:read'],
  ['GET', '/api/v1/workflows/running', 'workflows:read'],
  ['GET', '/api/v1/workflows/orphaned', 'workflows:read'],
  ['GET', '/api/v1/workflows/versions', 'workflows:read'],
  ['POST', '/api/v1/workflows/reload', 'workflows:admin'],
  ['POST', '/api/v1/workflows/recover-orphaned', 'workflows:admin'],
  ['GET', '/api/v1/workers', 'workers:read'],
  ['GET', '/api/v1/workers/dead', 'workers:read'],
  ['GET', '/api/v1/tasks/stats', 'workers:read'],
  ['GET', '/api/v1/tasks/slow', 'workers:read'],
  ['POST', '/api/v1/tasks/{task_id}/retry', 'workflows:write'],
  ['PATCH', '/api/v1/task-types/{type}', 'workers:admin'],
  ['POST', '/api/v1/pause', 'workers:admin'],
  ['POST', '/api/v1/resume', 'workers:admin'],
];
const RUN = '00000000-0000-4000-8000-000000000000';
const concrete = (route: string) => route.replace('{workflow_id}', RUN).replace('{task_id}', RUN).replace('{type}', 'http');

describe('the workers API', () => {
  let issuer: TestIssuer;
  let svc: Service;
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    svc = await startWorkers(issuer, { SERVICE_ROLE: 'api' });
  });
  afterAll(async () => {
    await svc?.stop();
    await issuer?.stop();
  });

  it('documents every workers row of endpoints.tsv in its OpenAPI 3.1 document', async () => {
    const tsv = path.join(__dirname, '../../../docs/spec/endpoints.tsv');
    if (existsSync(tsv)) {
      const rows = readFileSync(tsv, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('workers\t'))
        .map((line) => line.split('\t').slice(1, 3).join(' '));
      expect(rows.sort()).toEqual(ROWS.map(([method, route]) => `${method} ${route}`).sort());
    }
    const doc = (await request(svc.app).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Workers API', version: '1.0.0' });
    for (const [method, route, permission] of ROWS) {
      if (route.endsWith('/health')) continue;
      const operation = doc.paths[route]?.[method.toLowerCase()];
      expect([method, route, Boolean(operation)]).toEqual([method, route, true]);
      if (permission) expect(operation.security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('answers both health paths with Postgres and Redis checked', async () => {
    for (const route of ['/health', '/api/v1/health']) {
      const res = await request(svc.app).get(route);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'healthy', dependencies: { database: 'up', cache: 'up' }, paused: false });
    }
  });

  it.each(ROWS.filter(([, , permission]) => permission))('%s %s: 401 without a token, 403 without %s', async (method, route, permission) => {
    const send = (auth?: string) => {
      const req = request(svc.app)[method.toLowerCase() as 'get' | 'post' | 'patch'](concrete(route));
      return auth ? req.set('Authorization', auth) : req;
    };
    const anonymous = await send();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.type).toBe('authentication_error');
    const others = ALL.filter((granted) => granted !== permission);
    const denied = await send(issuer.bearer(others));
    expect(denied.status).toBe(403);
    expect(denied.body.error.details.required).toBe(permission);
  });

  it.each([
    ['POST', '/api/v1/workflows', { name: 'x' }, 404],
    ['POST', '/api/v1/workflows', { name: '', steps: [] }, 400],
    ['POST', '/api/v1/workflows', { name: 'x', steps: 'nope' }, 400],
    ['POST', '/api/v1/workflows', { name: 'x', steps: [{ id: 'a', type: 'http', url: 'ftp://x' }] }, 400],
    ['POST', '/api/v1/workflows', { name: 'x', steps: [{ id: 'a', type: 'http', url: 'http://x', extra: true }] }, 400],
    ['POST', '/api/v1/workflows', { name: 'x', steps: [{ id: 'a', type: 'http', url: 'http://x', retry: { maxAttempts: 0 } }] }, 400],
    [
      'POST',
      '/api/v1/workflows',
      { name: 'x', steps: [{ id: 'a', type: 'http', url: 'http://x' }], input: { deep: JSON.parse('['.repeat(5000) + ']'.repeat(5000)) } },
      400,
    ],
    ['POST', '/api/v1/workflows/not-a-uuid/retry', undefined, 400],
    ['POST', `/api/v1/workflows/${RUN}/retry`, undefined, 404],
    ['POST', `/api/v1/workflows/${RUN}/cancel`, undefined, 404],
    ['POST', '/api/v1/workflows/x/pin', undefined, 400],
    ['POST', '/api/v1/workflows/x/pin?version=0', undefined, 400],
    ['GET', `/api/v1/workflows/${RUN}/dag`, undefined, 404],
    ['GET', '/api/v1/workflows/1/dag', undefined, 400],
    ['GET', `/api/v1/workflows/${RUN}/trace`, undefined, 404],
    ['GET', '/api/v1/workflows/running?limit=501', undefined, 400],
    ['GET', '/api/v1/workflows/orphaned?offset=-1', undefined, 400],
    ['GET', '/api/v1/workflows/versions?name=%00', undefined, 400],
    ['POST', '/api/v1/workflows/reload', undefined, 409],
    ['GET', '/api/v1/workers?limit=0', undefined, 400],
    ['GET', '/api/v1/workers/dead?limit=x', undefined, 400],
    ['GET', '/api/v1/tasks/slow?threshold=-5', undefined, 400],
    ['POST', `/api/v1/tasks/${RUN}/retry`, undefined, 404],
    ['POST', `/api/v1/tasks/${RUN}/retry?timeout=0`, undefined, 400],
    ['POST', '/api/v1/tasks/zzz/retry', undefined, 400],
    ['PATCH', '/api/v1/task-types/ftp', { timeout: 5 }, 400],
    ['PATCH', '/api/v1/task-types/http', { timeout: 0 }, 400],
    ['PATCH', '/api/v1/task-types/http', { timeout: 5, other: 1 }, 400],
    ['PATCH', '/api/v1/task-types/http', {}, 400],
  ] as const)('%s %s with bad input: %#', async (method, route, body, status) => {
    const req = request(svc.app)[method.toLowerCase() as 'get' | 'post' | 'patch'](route).set('Authorization', issuer.bearer(ALL));
    const res = body === undefined ? await req : await req.send(body);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.objectContaining({ type: expect.any(String), code: expect.any(String), message: expect.any(String) }));
  });

  it('refuses a body nested deeper than the definition bound (32) with a 400 naming it', async () => {
    const res = await request(svc.app)
      .post('/api/v1/workflows')
      .set('Authorization', issuer.bearer(ALL))
      .set('content-type', 'application/json')
      .send(`{"name":"deep","steps":[{"id":"a","type":"http","url":"http://x"}],"input":{"d":${'['.repeat(40)}${']'.repeat(40)}}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('The request is nested deeper than 32 levels');
  });

  it('answers malformed input everywhere with a 4xx in the platform error shape, never a 5xx', async () => {
    const findings = await fuzzOpenApi(svc.app, {
      authorization: issuer.bearer(ALL),
      skip: ['post /pause', 'post /api/v1/pause', 'post /api/v1/workflows/recover-orphaned'],
    });
    expect(findings).toEqual([]);
  });
});
