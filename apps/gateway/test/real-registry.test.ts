import { spawnService, uniqueName, type ServiceProcess } from '@platform/testing';
import request from 'supertest';
import { Fakes } from './fakes';
import { manifest, startGateway, type Gateway } from './harness';

/** The saga against the real registry, run as its own process with the test issuer's JWKS. */
describe('agents against a real registry process', () => {
  let g: Gateway;
  let registry: ServiceProcess;
  let token: string;
  beforeAll(async () => {
    const fakes = await new Fakes().start();
    registry = await spawnService('registry', {
      env: { AUTH_URL: new URL(fakes.issuer.jwksUri).origin, AUTH_ISSUER: fakes.issuer.issuer, AUTH_AUDIENCE: fakes.issuer.audience },
      timeoutMs: 90_000,
    });
    g = await startGateway({ REGISTRY_URL: registry.url }, fakes);
    token = g.issuer.bearer(['agents:read', 'agents:write', 'registry:read', 'registry:write'], { sub: uniqueName('owner') });
  }, 120_000);
  afterAll(async () => {
    await registry?.stop();
    await g?.stop();
  });

  it('publishes the manifest in the registry, and a later failure unpublishes it', async () => {
    const kept = manifest({ namespace: uniqueName('ns') });
    const created = await request(g.app).post('/api/v1/agents').set('Authorization', token).send({ manifest: kept });
    expect({ status: created.status, error: created.body.error?.message }).toEqual({ status: 201, error: undefined });
    const inRegistry = await request(registry.url).get(`/api/v1/agents/${kept.metadata.namespace}/${kept.metadata.name}`).set('Authorization', token);
    expect(inRegistry.status).toBe(200);
    expect(inRegistry.body).toMatchObject({ latestVersion: '1.0.0' });

    const undone = manifest({ namespace: uniqueName('ns') });
    g.fakes.mesh.fail('POST', '^/api/v1/agents$', 500);
    try {
      const failed = await request(g.app).post('/api/v1/agents').set('Authorization', token).send({ manifest: undone });
      expect(failed.status).toBe(502);
      expect(failed.body.error.details).toMatchObject({ step: 'mesh', service: 'mesh' });
    } finally {
      g.fakes.mesh.failures.clear();
    }
    const gone = await request(registry.url).get(`/api/v1/agents/${undone.metadata.namespace}/${undone.metadata.name}`).set('Authorization', token);
    expect(gone.status).toBe(404);

    // Deleting through the gateway removes it from the registry.
    expect((await request(g.app).delete(`/api/v1/agents/${created.body.id}`).set('Authorization', token)).status).toBe(204);
    expect((await request(registry.url).get(`/api/v1/agents/${kept.metadata.namespace}/${kept.metadata.name}`).set('Authorization', token)).status).toBe(404);
  });

  it("forwards the caller's token: a caller without registry:write is refused by the registry and nothing is left", async () => {
    const weak = g.issuer.bearer(['agents:write'], { sub: uniqueName('weak') });
    const refused = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', weak)
      .send({ manifest: manifest({ namespace: uniqueName('ns') }) });
    expect(refused.status).toBe(502);
    expect(refused.body.error.details).toMatchObject({ step: 'registry', service: 'registry', upstreamStatus: 403 });
    expect(refused.body.error.details.agent.steps).toEqual([expect.objectContaining({ step: 'registry', status: 'failed' })]);
  });
});
