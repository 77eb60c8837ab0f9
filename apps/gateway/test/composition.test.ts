import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { startGateway, type Gateway } from './harness';

const uuid = '00000000-0000-4000-8000-000000000000';

describe('workflows, CMS, studio, source control and discovery through the gateway', () => {
  let g: Gateway;
  let user: string;
  beforeAll(async () => {
    g = await startGateway({ SERVICE_ROLE: 'all' }); // the only file that runs the site and studio jobs
    user = g.issuer.bearer(
      ['workflows:read', 'workflows:write', 'workflows:execute', 'cms:*', 'studio:read', 'studio:write', 'scm:read', 'scm:write', 'registry:read'],
      { sub: uniqueName('user') },
    );
  });
  afterAll(() => g.stop());

  describe('workflows', () => {
    it('sends flow-based workflows to the workflow engine and chain-based ones to workers', async () => {
      const flow = await request(g.app)
        .post('/api/v1/workflows')
        .set('Authorization', user)
        .send({ name: 'summarise', framework: 'langflow', flow: { nodes: [], edges: [] } });
      expect(flow.status).toBe(201);
      expect(flow.body).toMatchObject({ framework: 'langflow', target: 'workflow-engine' });
      expect(g.fakes.workflowEngine.calls('POST', '/api/v1/workflows').at(-1)!).toMatchObject({
        authorization: user,
        body: { name: 'summarise', flow: { nodes: [], edges: [] } },
      });
      const chain = await request(g.app)
        .post('/api/v1/workflows')
        .set('Authorization', user)
        .send({ name: 'etl', framework: 'langchain', steps: [{ id: 'a', type: 'http', url: 'http://example.test' }] });
      expect(chain.status).toBe(201);
      expect(chain.body).toMatchObject({ framework: 'langchain', target: 'workers', remoteId: 'etl' });

      const listed = await request(g.app).get('/api/v1/workflows?framework=langchain').set('Authorization', user);
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((item: { id: string }) => item.id)).toEqual([chain.body.id]);

      const ranFlow = await request(g.app)
        .post(`/api/v1/workflows/${flow.body.id}/execute`)
        .set('Authorization', user)
        .send({ inputs: { text: 'x' } });
      expect(ranFlow.status).toBe(200);
      expect(ranFlow.body).toMatchObject({ target: 'workflow-engine', execution: { status: 'running' } });
      expect(g.fakes.workflowEngine.calls('POST', `/api/v1/workflows/${flow.body.remoteId}/execute`).at(-1)!.body).toEqual({ inputs: { text: 'x' } });
      const ranChain = await request(g.app)
        .post(`/api/v1/workflows/${chain.body.id}/execute`)
        .set('Authorization', user)
        .send({ inputs: { n: 1 } });
      expect(ranChain.status).toBe(200);
      expect(g.fakes.workers.calls('POST', '/api/v1/workflows').at(-1)!.body).toEqual({
        name: 'etl',
        steps: [{ id: 'a', type: 'http', url: 'http://example.test' }],
        input: { n: 1 },
      });
    });

    it('refuses bad input, strangers and unknown workflows; a failing engine answers 502 naming it', async () => {
      expect((await request(g.app).post('/api/v1/workflows').set('Authorization', user).send({ name: 'x', framework: 'langflow' })).status).toBe(400);
      expect(
        (
          await request(g.app)
            .post('/api/v1/workflows')
            .set('Authorization', user)
            .send({ name: 'x', framework: 'cobol', steps: [{}] })
        ).status,
      ).toBe(400);
      expect((await request(g.app).get('/api/v1/workflows?framework=nope').set('Authorization', user)).status).toBe(400);
      expect((await request(g.app).post(`/api/v1/workflows/${uuid}/execute`).set('Authorization', user).send({})).status).toBe(404);
      expect((await request(g.app).get('/api/v1/workflows')).status).toBe(401);
      expect(
        (
          await request(g.app)
            .get('/api/v1/workflows')
            .set('Authorization', g.issuer.bearer(['cms:read']))
        ).status,
      ).toBe(403);
      g.fakes.workflowEngine.fail('POST', '^/api/v1/workflows$', 500);
      try {
        const failed = await request(g.app).post('/api/v1/workflows').set('Authorization', user).send({ name: 'y', framework: 'flow', flow: {} });
        expect(failed.status).toBe(502);
        expect(failed.body.error).toMatchObject({ code: 'upstream_error', details: { service: 'workflow-engine' } });
      } finally {
        g.fakes.workflowEngine.failures.clear();
      }
    });
  });

  describe('CMS', () => {
    it('creates and lists content and users through JSON:API', async () => {
      const title = uniqueName('Hello');
      const created = await request(g.app)
        .post('/api/v1/cms/content')
        .set('Authorization', user)
        .send({ type: 'article', title, body: 'Text', status: 'published' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ type: 'node--article', attributes: { title, status: true, body: { value: 'Text' } } });
      const sent = g.fakes.cms.calls('POST', '/jsonapi/node/article').at(-1)!;
      expect(sent.authorization).toBe('Bearer cms-test-key');
      expect(sent.headers['content-type']).toBe('application/vnd.api+json');
      const listed = await request(g.app).get('/api/v1/cms/content?type=article&status=published').set('Authorization', user);
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((item: { attributes: { title: string } }) => item.attributes.title)).toContain(title);

      const person = await request(g.app)
        .post('/api/v1/cms/users')
        .set('Authorization', user)
        .send({ name: 'ada', mail: 'ada@example.test', roles: ['editor'] });
      expect(person.status).toBe(201);
      expect(person.body).toMatchObject({ type: 'user--user', attributes: { name: 'ada', mail: 'ada@example.test', roles: ['editor'] } });
      const users = await request(g.app).get('/api/v1/cms/users').set('Authorization', user);
      expect(users.body.total).toBeGreaterThan(0);
      expect((await request(g.app).post('/api/v1/cms/users').set('Authorization', user).send({ name: 'x', mail: 'not-mail' })).status).toBe(400);
      expect(
        (
          await request(g.app)
            .get('/api/v1/cms/users')
            .set('Authorization', g.issuer.bearer(['cms:read']))
        ).status,
      ).toBe(403);
    });

    it('builds a site as a queued job whose progress is readable', async () => {
      const started = await request(g.app)
        .post('/api/v1/cms/sites')
        .set('Authorization', user)
        .send({
          name: 'Acme',
          description: 'Agents at work',
          pages: [
            { title: 'Home', path: '/' },
            { title: 'About', path: '/about', prompt: 'Who we are' },
          ],
        });
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({ status: 'queued', progress: { total: 2, done: 0 } });
      const done = await eventually(async () => {
        const job = await request(g.app).get(started.body.links.self).set('Authorization', user);
        return job.body.status === 'completed' && job.body;
      });
      expect(done.progress).toEqual({ total: 2, done: 2, percent: 100 });
      expect(done.pages.every((page: { cmsId: string | null }) => page.cmsId)).toBe(true);
      const pages = g.fakes.cms
        .calls('POST', '/jsonapi/node/page')
        .map((call) => (call.body as { data: { attributes: { title: string } } }).data.attributes.title);
      expect(pages).toEqual(expect.arrayContaining(['Home', 'About']));
      const stranger = g.issuer.bearer(['cms:read']);
      expect((await request(g.app).get(started.body.links.self).set('Authorization', stranger)).status).toBe(404);
      expect((await request(g.app).post('/api/v1/cms/sites').set('Authorization', user).send({ name: 'x', pages: [] })).status).toBe(400);
    });

    it('answers 502 naming the CMS when it fails', async () => {
      g.fakes.cms.fail('GET', '^/jsonapi/', 503);
      try {
        const failed = await request(g.app).get('/api/v1/cms/content').set('Authorization', user);
        expect(failed.status).toBe(502);
        expect(failed.body.error.details).toMatchObject({ service: 'cms' });
      } finally {
        g.fakes.cms.failures.clear();
      }
    });
  });

  describe('studio', () => {
    it('queues a task that a coding agent runs through the mesh, its state readable', async () => {
      const session = await request(g.app)
        .post('/api/v1/studio/sessions')
        .set('Authorization', user)
        .send({ name: 'fix bug', repository: 'https://git.example.test/acme/app', capability: 'coding' });
      expect(session.status).toBe(201);
      const task = await request(g.app).post(`/api/v1/studio/sessions/${session.body.id}/tasks`).set('Authorization', user).send({ instruction: 'add a test' });
      expect(task.status).toBe(202);
      expect(task.body.status).toBe('queued');
      const finished = await eventually(async () => {
        const read = await request(g.app).get(`/api/v1/studio/sessions/${session.body.id}/tasks/${task.body.id}`).set('Authorization', user);
        return read.body.status === 'completed' && read.body;
      });
      expect(finished).toMatchObject({ agentId: 'agent-for-coding', result: { echo: 'add a test' } });
      const message = g.fakes.mesh
        .calls('POST', '/api/v1/messages')
        .find((call) => (call.body as { payload: { task_id?: string } }).payload.task_id === task.body.id)!;
      expect(message.body).toMatchObject({
        capability: 'coding',
        payload: { type: 'coding-task', instruction: 'add a test', repository: 'https://git.example.test/acme/app' },
      });
      const sessions = await request(g.app).get('/api/v1/studio/sessions').set('Authorization', user);
      expect(sessions.body.items.find((item: { id: string }) => item.id === session.body.id).tasks).toHaveLength(1);
      const stranger = g.issuer.bearer(['studio:read', 'studio:write']);
      expect(
        (await request(g.app).post(`/api/v1/studio/sessions/${session.body.id}/tasks`).set('Authorization', stranger).send({ instruction: 'x' })).status,
      ).toBe(404);
      expect((await request(g.app).post(`/api/v1/studio/sessions/${uuid}/tasks`).set('Authorization', user).send({ instruction: 'x' })).status).toBe(404);
      expect((await request(g.app).post(`/api/v1/studio/sessions/${session.body.id}/tasks`).set('Authorization', user).send({})).status).toBe(400);
    });

    it('fails a task the mesh refuses', async () => {
      g.fakes.mesh.fail('POST', '^/api/v1/messages', 503);
      g.fakes.mesh.failures.set('POST ^/api/v1/messages', 404);
      try {
        const session = await request(g.app)
          .post('/api/v1/studio/sessions')
          .set('Authorization', user)
          .send({ name: 'nobody', capability: 'nobody-serves-this' });
        const task = await request(g.app).post(`/api/v1/studio/sessions/${session.body.id}/tasks`).set('Authorization', user).send({ instruction: 'x' });
        const failed = await eventually(async () => {
          const read = await request(g.app).get(`/api/v1/studio/sessions/${session.body.id}/tasks/${task.body.id}`).set('Authorization', user);
          return read.body.status === 'failed' && read.body;
        });
        expect(failed.error).toMatch(/mesh answered POST \/api\/v1\/messages with 404/);
      } finally {
        g.fakes.mesh.failures.clear();
      }
    });
  });

  describe('source control', () => {
    it('runs pipelines and lists pipelines and packages on a GitLab-style server', async () => {
      const run = await request(g.app)
        .post('/api/v1/scm/pipelines')
        .set('Authorization', user)
        .send({ project: 'acme/app', ref: 'main', variables: { DEPLOY: '1' } });
      expect(run.status).toBe(202);
      expect(run.body).toMatchObject({ id: 41, project: 'acme/app', ref: 'main', status: 'created' });
      const sent = g.fakes.scm.calls('POST', '/api/v4/projects/acme%2Fapp/pipeline').at(-1)!;
      expect(sent.headers['private-token']).toBe('scm-test-token');
      expect(sent.body).toEqual({ ref: 'main', variables: [{ key: 'DEPLOY', value: '1' }] });
      const pipelines = await request(g.app).get('/api/v1/scm/pipelines?project=acme/app').set('Authorization', user);
      expect(pipelines.status).toBe(200);
      expect(pipelines.body.items[0]).toMatchObject({ id: 41, status: 'success' });
      const packages = await request(g.app).get('/api/v1/scm/packages?scope=group/acme&package_type=npm').set('Authorization', user);
      expect(packages.status).toBe(200);
      expect(packages.body).toMatchObject({ scope: 'group/acme', items: [{ name: '@acme/agent-kit', packageType: 'npm' }] });
      expect(g.fakes.scm.calls('GET', '/api/v4/groups/acme/packages').at(-1)!.path).toContain('package_type=npm');
      expect((await request(g.app).get('/api/v1/scm/packages').set('Authorization', user)).status).toBe(400);
      expect((await request(g.app).post('/api/v1/scm/pipelines').set('Authorization', user).send({ project: '../x', ref: 'main' })).status).toBe(400);
      expect(
        (
          await request(g.app)
            .get('/api/v1/scm/pipelines?project=a')
            .set('Authorization', g.issuer.bearer(['cms:read']))
        ).status,
      ).toBe(403);
    });
  });

  describe('discovery', () => {
    it('merges registry agents, live mesh agents and MCP servers', async () => {
      const found = await request(g.app).get('/api/v1/registry/discover?capability=summarize').set('Authorization', user);
      expect(found.status).toBe(200);
      expect(found.body.items.map((item: { source: string }) => item.source).sort()).toEqual(['mcp-registry', 'mesh', 'registry']);
      expect(found.body.sources).toEqual({
        registry: { status: 'ok', count: 1 },
        mesh: { status: 'ok', count: 1 },
        'mcp-registry': { status: 'ok', count: 1 },
      });
      expect(g.fakes.registry.calls('GET', '/api/v1/agents').at(-1)!.path).toContain('capability=summarize');
      expect(g.fakes.mcpRegistry.calls('POST', '/connections/discover').at(-1)!.body).toMatchObject({ capabilities: ['summarize'] });
      const byFramework = await request(g.app).get('/api/v1/registry/discover?framework=langchain').set('Authorization', user);
      expect(byFramework.body.items.map((item: { source: string }) => item.source).sort()).toEqual(['mesh', 'registry']);
    });

    it('reports a source that is down, and answers 502 naming all when none answers', async () => {
      g.fakes.mesh.fail('GET', '^/api/v1/agents', 503);
      try {
        const partial = await request(g.app).get('/api/v1/registry/discover').set('Authorization', user);
        expect(partial.status).toBe(200);
        expect(partial.body.sources.mesh).toMatchObject({ status: 'unavailable', count: 0 });
        g.fakes.registry.fail('GET', '^/api/v1/agents', 503);
        g.fakes.mcpRegistry.fail('POST', '^/connections/discover', 503);
        const none = await request(g.app).get('/api/v1/registry/discover').set('Authorization', user);
        expect(none.status).toBe(502);
        expect(none.body.error.details.services).toEqual(['registry', 'mesh', 'mcp-registry']);
      } finally {
        for (const fake of [g.fakes.mesh, g.fakes.registry, g.fakes.mcpRegistry]) fake.failures.clear();
      }
      expect((await request(g.app).get('/api/v1/registry/discover?capability=%00')).status).toBe(401);
      expect((await request(g.app).get('/api/v1/registry/discover?capability=bad%20cap').set('Authorization', user)).status).toBe(400);
    });
  });
});
