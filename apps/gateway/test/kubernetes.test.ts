import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { uniqueName } from '@platform/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { KubernetesDeployer, loadKubeConfig, type DeployTarget } from '../src/agents/deployers';
import { manifest, startGateway, type Gateway } from './harness';

const target = (name: string): DeployTarget => ({
  id: name,
  namespace: 'acme',
  name,
  version: '1.0.0',
  manifest: manifest({ name }),
  image: 'ghcr.io/acme/agent:1',
  port: 8080,
  replicas: 1,
  env: {},
});

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
    // The Service is replaced too, keeping the cluster IP the cluster gave it.
    const service2 = g.fakes.kubernetes.calls('PUT', `/api/v1/namespaces/agents-test/services/${name}`).at(-1)!.body as V1Service;
    expect(service2.spec).toMatchObject({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 8080 }] });
    expect(service2.metadata!.resourceVersion).toBe('1');

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

  it('deleting an agent whose workload is already gone succeeds (404 is done)', async () => {
    const body = { ...manifest(), runtime: { image: 'ghcr.io/acme/x:1' } };
    const created = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
    expect(created.status).toBe(201);
    const name = `acme-${body.metadata.name}`;
    g.fakes.k8sObjects.delete(`deployments/agents-test/${name}`);
    g.fakes.k8sObjects.delete(`services/agents-test/${name}`);

    const removed = await request(g.app).delete(`/api/v1/agents/${created.body.id}`).set('Authorization', writer);
    expect(removed.status).toBe(204);
    expect(g.fakes.kubernetes.calls('DELETE', `/apis/apps/v1/namespaces/agents-test/deployments/${name}`).length).toBeGreaterThan(0);
    expect((await request(g.app).get(`/api/v1/agents/${created.body.id}`).set('Authorization', writer)).status).toBe(404);
  });

  it('a Kubernetes API that cannot be reached answers 502 naming kubernetes, with the earlier steps undone', async () => {
    const down = await startGateway({
      GATEWAY_DEPLOYER: 'kubernetes',
      GATEWAY_K8S_NAMESPACE: 'agents-test',
      GATEWAY_K8S_TOKEN: 't',
      GATEWAY_K8S_API_URL: 'http://127.0.0.1:1',
    });
    try {
      const body = { ...manifest(), runtime: { image: 'ghcr.io/acme/x:1' } };
      const owner = down.issuer.bearer(['agents:read', 'agents:write'], { sub: uniqueName('owner') });
      const failed = await request(down.app).post('/api/v1/agents').set('Authorization', owner).send({ manifest: body });
      expect(failed.status).toBe(502);
      expect(failed.body.error.message).toMatch(/kubernetes is unreachable/);
      expect(failed.body.error.details).toMatchObject({ step: 'deployer', service: 'kubernetes' });
      const steps = failed.body.error.details.agent.steps.map((step: { step: string; status: string }) => `${step.step}:${step.status}`);
      expect(steps).toEqual(['registry:compensated', 'master:compensated', 'mesh:compensated', 'tracing:compensated', 'deployer:failed']);
      expect(down.fakes.registry.calls('DELETE', `/api/v1/agents/acme/${body.metadata.name}`)).toHaveLength(1);
      expect(down.fakes.master.calls('DELETE', '/api/v1/agents/')).toHaveLength(1);
    } finally {
      await down.stop();
    }
  });

  it('deploys with the credentials of a KUBECONFIG file, and removing twice succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
    const file = join(dir, 'config');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: test',
        'clusters: [{ name: fake, cluster: { server: "' + g.fakes.kubernetes.url + '", insecure-skip-tls-verify: true } }]',
        'users: [{ name: deployer, user: { token: kubeconfig-token } }]',
        'contexts: [{ name: test, context: { cluster: fake, user: deployer } }]',
      ].join('\n'),
    );
    const deployer = await KubernetesDeployer.create({ kubeConfig: await loadKubeConfig({ kubeconfig: file }), namespace: 'from-kubeconfig' });
    const name = uniqueName('kc');
    expect(await deployer.apply(target(name))).toMatchObject({ deployer: 'kubernetes', namespace: 'from-kubeconfig', deployment: `acme-${name}` });
    const post = g.fakes.kubernetes.calls('POST', '/apis/apps/v1/namespaces/from-kubeconfig/deployments').at(-1)!;
    expect(post.authorization).toBe('Bearer kubeconfig-token');
    expect(g.fakes.k8sObjects.has(`services/from-kubeconfig/acme-${name}`)).toBe(true);

    await deployer.remove(target(name));
    await deployer.remove(target(name));
    expect(g.fakes.k8sObjects.has(`deployments/from-kubeconfig/acme-${name}`)).toBe(false);
  });

  it("uses the service account's token file when a server is configured without a token", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serviceaccount-'));
    // As the kubelet writes it: no trailing newline (the client sends the file as it is).
    writeFileSync(join(dir, 'token'), 'service-account-token');
    const kubeConfig = await loadKubeConfig({ apiUrl: g.fakes.kubernetes.url, serviceAccountDir: dir });
    const deployer = await KubernetesDeployer.create({ kubeConfig, namespace: 'from-account' });
    const name = uniqueName('sa');
    await deployer.apply(target(name));
    expect(g.fakes.kubernetes.calls('POST', '/api/v1/namespaces/from-account/services').at(-1)!.authorization).toBe('Bearer service-account-token');
    await deployer.remove(target(name));
  });

  it('without a server, KUBECONFIG or a service account, the configuration error names the variables', async () => {
    await expect(loadKubeConfig({})).rejects.toThrow(/GATEWAY_K8S_API_URL, KUBECONFIG/);
  });
});
