import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { manifest, startGateway, type Gateway } from './harness';

describe('the Kubernetes deployer against a fake Kubernetes API server', () => {
  let g: Gateway;
  let writer: string;
  beforeAll(async () => {
    g = await startGateway({ GATEWAY_DEPLOYER: 'kubernetes', GATEWAY_K8S_NAMESPACE: 'agents-test', GATEWAY_K8S_TOKEN: 'k8s-token' });
    // The deployer reaches the fake through its URL; set after the fakes started.
    writer = g.issuer.bearer(['agents:read', 'agents:write'], { sub: uniqueName('owner') });
  });
  afterAll(() => g.stop());

  it('creates a Deployment and a Service from the manifest runtime and security limits', async () => {
    const body = { ...manifest(), runtime: { image: 'ghcr.io/acme/summarizer:1.0.0' } };
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', writer)
      .send({ manifest: body, deployment: { port: 8080, replicas: 2, env: { MODE: 'fast' } } });
    expect(created.status).toBe(201);
    const name = `acme-${body.metadata.name}`;
    expect(created.body.endpoint).toBe(`http://${name}.agents-test.svc.cluster.local:8080`);
    expect(created.body.steps.at(-1)).toMatchObject({
      step: 'deployer',
      status: 'done',
      detail: { deployer: 'kubernetes', namespace: 'agents-test', deployment: name, service: name },
    });

    const posts = g.fakes.kubernetes.calls('POST', '/apis/apps/v1/namespaces/agents-test/deployments');
    expect(posts.at(-1)!.authorization).toBe('Bearer k8s-token');
    const deployment = posts.at(-1)!.body as V1Deployment;
    expect(deployment).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'agents-test', labels: { 'agent-platform/name': body.metadata.name } },
      spec: { replicas: 2 },
    });
    const container = deployment.spec!.template.spec!.containers[0];
    expect(container.image).toBe('ghcr.io/acme/summarizer:1.0.0');
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(container.resources!.limits).toEqual({ memory: '512Mi', cpu: '0.5', 'ephemeral-storage': '1024Mi' });
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'MODE', value: 'fast' },
        { name: 'AGENT_ID', value: created.body.id },
        { name: 'AGENT_MAX_EXECUTION_SECONDS', value: '120' },
      ]),
    );
    expect(deployment.spec!.template.spec!.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(deployment.spec!.selector.matchLabels).toEqual({ 'app.kubernetes.io/instance': name });

    const service = g.fakes.kubernetes.calls('POST', '/api/v1/namespaces/agents-test/services').at(-1)!.body as V1Service;
    expect(service).toMatchObject({
      kind: 'Service',
      metadata: { name },
      spec: { type: 'ClusterIP', selector: { 'app.kubernetes.io/instance': name }, ports: [{ port: 8080, targetPort: 'http' }] },
    });

    // An update replaces the Deployment (409 on create, then PUT with its resourceVersion).
    const updated = await request(g.app)
      .put(`/api/v1/agents/${created.body.id}`)
      .set('Authorization', writer)
      .send({ deployment: { replicas: 3 } });
    expect(updated.status).toBe(200);
    const replaced = g.fakes.kubernetes.calls('PUT', `/apis/apps/v1/namespaces/agents-test/deployments/${name}`).at(-1)!.body as V1Deployment;
    expect(replaced.spec!.replicas).toBe(3);
    expect(replaced.metadata!.resourceVersion).toBe('1');

    const removed = await request(g.app).delete(`/api/v1/agents/${created.body.id}`).set('Authorization', writer);
    expect(removed.status).toBe(204);
    expect(g.fakes.k8sObjects.has(`deployments/agents-test/${name}`)).toBe(false);
    expect(g.fakes.k8sObjects.has(`services/agents-test/${name}`)).toBe(false);
  });

  it('a failed deployment undoes registry, master, mesh and tracing', async () => {
    const body = { ...manifest(), runtime: { image: 'ghcr.io/acme/x:1' } };
    g.fakes.kubernetes.fail('POST', '^/api/v1/namespaces/agents-test/services$', 403);
    try {
      const failed = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
      expect(failed.status).toBe(502);
      expect(failed.body.error.details).toMatchObject({ step: 'deployer', service: 'kubernetes', upstreamStatus: 403 });
      const steps = failed.body.error.details.agent.steps.map((step: { step: string; status: string }) => `${step.step}:${step.status}`);
      expect(steps).toEqual(['registry:compensated', 'master:compensated', 'mesh:compensated', 'tracing:compensated', 'deployer:failed']);
      expect(g.fakes.tracing.calls('DELETE', '/api/traces').length).toBeGreaterThan(0);
      expect(g.fakes.registry.calls('DELETE', `/api/v1/agents/acme/${body.metadata.name}`)).toHaveLength(1);
      // The half-made Deployment was removed too.
      expect(g.fakes.k8sObjects.has(`deployments/agents-test/acme-${body.metadata.name}`)).toBe(false);
    } finally {
      g.fakes.kubernetes.failures.clear();
    }
  });

  it('refuses an agent without an image with 400', async () => {
    const answer = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: manifest() });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.issues[0].path).toBe('body.deployment.image');
  });
});
