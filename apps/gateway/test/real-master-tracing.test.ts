import { spawnService, uniqueName, type ServiceProcess } from '@platform/testing';
import request from 'supertest';
import { Fakes } from './fakes';
import { manifest, startGateway, type Gateway } from './harness';

/** The saga's master and tracing steps, and their undoing, against real processes of both. */
describe('agents against real master and tracing processes', () => {
  let g: Gateway;
  let master: ServiceProcess;
  let tracing: ServiceProcess;
  let token: string;
  let owner: string;
  beforeAll(async () => {
    const fakes = await new Fakes().start();
    // The gateway's own key: it acts for users with tokens the (fake) auth delegates (RFC 8693).
    const gatewayKey = `gk_${uniqueName('gateway')}_secret`;
    fakes.apiKeys.set(gatewayKey, { sub: uniqueName('gateway-service'), permissions: ['traces:write', 'tokens:exchange'] });
    const auth = { AUTH_URL: new URL(fakes.issuer.jwksUri).origin, AUTH_ISSUER: fakes.issuer.issuer, AUTH_AUDIENCE: fakes.issuer.audience };
    [master, tracing] = await Promise.all([
      spawnService('master', { env: { ...auth, REGISTRY_URL: fakes.registry.url }, timeoutMs: 90_000 }),
      // gRPC ingestion on a port of its own: 4317 may be another tracing's in a parallel suite.
      spawnService('tracing', { env: { ...auth, TRACING_GRPC_PORT: '0' }, timeoutMs: 90_000 }),
    ]);
    g = await startGateway(
      {
        MASTER_URL: master.url,
        TRACING_URL: tracing.url,
        GATEWAY_DEPLOYER: 'kubernetes',
        GATEWAY_K8S_NAMESPACE: 'agents',
        GATEWAY_K8S_TOKEN: 't',
        GATEWAY_API_KEY: gatewayKey,
      },
      fakes,
    );
    owner = uniqueName('owner');
    token = g.issuer.bearer(['agents:read', 'agents:write', 'traces:read', 'traces:write', 'traces:admin'], { sub: owner });
  }, 150_000);
  afterAll(async () => {
    await Promise.all([master?.stop(), tracing?.stop()]);
    await g?.stop();
  });

  it('records the agent in master and starts its tracing project; a failed deployment undoes both', async () => {
    const body = { ...manifest(), runtime: { image: 'ghcr.io/acme/a:1' } };
    const created = await request(g.app).post('/api/v1/agents').set('Authorization', token).send({ manifest: body });
    expect({ status: created.status, error: created.body.error?.message }).toEqual({ status: 201, error: undefined });
    const inMaster = await request(master.url).get(`/api/v1/agents/${created.body.refs.masterId}`).set('Authorization', token);
    expect(inMaster.status).toBe(200);
    // Recorded by the gateway acting for the user: the agent in master is the user's.
    expect(inMaster.body).toMatchObject({ namespace: 'acme', name: body.metadata.name, owner });
    expect(g.fakes.exchanges.filter((exchange) => exchange.subject === owner)).toHaveLength(1);
    const project = `agent-acme-${body.metadata.name}`;
    const spans = await request(tracing.url).get(`/api/projects/${project}/spans`).set('Authorization', token);
    expect(spans.status).toBe(200);
    expect(JSON.stringify(spans.body)).toContain('gateway.project.created');

    const failing = { ...manifest(), runtime: { image: 'ghcr.io/acme/b:1' } };
    g.fakes.kubernetes.fail('POST', '^/apis/apps/v1/namespaces/agents/deployments$', 500);
    let failed;
    try {
      failed = await request(g.app).post('/api/v1/agents').set('Authorization', token).send({ manifest: failing });
    } finally {
      g.fakes.kubernetes.failures.clear();
    }
    expect(failed.status).toBe(502);
    expect(failed.body.error.details).toMatchObject({ step: 'deployer', service: 'kubernetes' });
    const refs = failed.body.error.details.agent.refs;
    expect((await request(master.url).get(`/api/v1/agents/${refs.masterId}`).set('Authorization', token)).status).toBe(404);
    const traced = await request(tracing.url).get(`/api/traces/${refs.tracingTraceId}`).set('Authorization', token);
    expect(traced.status).toBe(404);
  }, 60_000);
});
