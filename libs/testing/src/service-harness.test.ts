import { ApiRouter } from '@platform/http';
import { defineService } from '@platform/service-kit';
import request from 'supertest';
import { startTestService } from './service-harness';

const echoService = defineService({
  name: 'harness-test',
  version: '0.0.1',
  port: 3999,
  openapi: { title: 'Harness test' },
  config: {},
  async build(infra) {
    const api = new ApiRouter(await infra.verifier());
    api.route({
      method: 'get',
      path: '/whoami',
      summary: 'The caller',
      access: { permission: 'things:read' },
      responses: { 200: { description: 'The caller' } },
      handler: (req) => ({ sub: req.auth?.sub }),
    });
    return { routers: [{ basePath: '/api/v1', router: api }], marker: 'built' };
  },
});

describe('startTestService', () => {
  it('boots a definition through startService with a real issuer, and keeps what build returned', async () => {
    const service = await startTestService(echoService);
    try {
      expect(service.parts.marker).toBe('built');
      const caller = service.user(['things:read']);
      const ok = await request(service.app).get('/api/v1/whoami').set('Authorization', caller.auth);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ sub: caller.sub });
      expect((await request(service.app).get('/api/v1/whoami').set('Authorization', service.user([]).auth)).status).toBe(403);
      expect((await request(service.app).get('/api/v1/whoami')).status).toBe(401);
    } finally {
      await service.stop();
    }
  });

  it('serves only health and metrics in the worker role', async () => {
    const worker = await startTestService(echoService, { env: { SERVICE_ROLE: 'worker' } });
    try {
      expect((await request(worker.url).get('/health/live')).status).toBe(200);
      expect((await request(worker.url).get('/health/ready')).status).toBe(200);
      expect(
        (
          await request(worker.url)
            .get('/api/v1/whoami')
            .set('Authorization', worker.user(['things:read']).auth)
        ).status,
      ).toBe(404);
    } finally {
      await worker.stop();
    }
  });
});
