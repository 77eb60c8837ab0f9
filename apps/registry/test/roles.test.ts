import { startTestService } from '@platform/testing';
import request from 'supertest';
import { registryService } from '../src/service';

/** `--role worker` processes certifications and still answers the Helm chart's HTTP probes. */
describe('the worker role', () => {
  it('serves /health/live and /health/ready on its port, and no API', async () => {
    const worker = await startTestService(registryService, { env: { SERVICE_ROLE: 'worker' } });
    try {
      const live = await request(worker.url).get('/health/live');
      expect(live.status).toBe(200);
      const ready = await request(worker.url).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.dependencies).toMatchObject({ database: expect.anything(), cache: expect.anything() });
      const api = await request(worker.url)
        .get('/api/v1/agents')
        .set('Authorization', worker.issuer.bearer(['registry:read']));
      expect(api.status).toBe(404);
    } finally {
      await worker.stop();
    }
  });
});
