import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { finished, startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(15);
});
afterAll(() => engine.stop());

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
const chain = (...ids: string[]) => ids.slice(1).map((target, index) => ({ source: ids[index], target }));

async function run(nodes: unknown[], edges: unknown[] = [], inputs: Record<string, unknown> = {}) {
  const wf = await engine.createWorkflow({ nodes, edges });
  return finished(engine, (await engine.execute(wf.id, { inputs })).body.executionId);
}

describe('CMS components against the fake JSON:API CMS', () => {
  it('creates, loads and updates a node, and logs a user in whose token then creates one', async () => {
    const done = await run(
      [
        node('create', 'EntityCreate', { bundle: 'article', fields: { title: 'Hello CMS' } }),
        node('load', 'EntityLoad', { nid: '{{create.nid}}', bundle: 'article' }),
        node('update', 'EntityUpdate', { nid: '{{create.uuid}}', bundle: 'article', fields: { title: 'Changed {{load.entity.title}}' } }),
        node('login', 'UserLogin', { username: 'editor', password: 'pa55word' }),
        node('asUser', 'EntityCreate', { bundle: 'page', fields: { title: 'by editor' }, token: '{{login.token}}' }),
      ],
      [...chain('create', 'load', 'update'), { source: 'login', target: 'asUser' }],
    );
    expect(done.status).toBe('completed');
    expect(done.result.create).toMatchObject({ nid: expect.stringMatching(/^\d+$/), url: expect.stringContaining('/jsonapi/node/article/') });
    expect(done.nodes.find((n: { nodeId: string }) => n.nodeId === 'create').entityCreated).toBe(done.result.create.nid);
    expect(done.result.load.entity).toMatchObject({ title: 'Hello CMS', type: 'node--article' });
    expect(done.result.update).toMatchObject({ updated: true, entity: { title: 'Changed Hello CMS' } });
    const stored = engine.cms.nodes.get(done.result.create.uuid);
    expect(stored?.attributes.title).toBe('Changed Hello CMS');
    const userCall = engine.cms.requests.find((r) => r.path === '/jsonapi/node/page' && r.method === 'POST');
    expect(userCall?.authorization).toBe(`Bearer ${done.result.login.token}`);
  });

  it('fails with a clear code on bad credentials, a missing node and a CMS that is down', async () => {
    const login = await run([node('login', 'UserLogin', { username: 'editor', password: 'wrong' })]);
    expect(login.error).toMatchObject({ nodeId: 'login', code: 'UPSTREAM_REJECTED', retryable: false });
    const missing = await run([node('load', 'EntityLoad', { nid: 999999 })]);
    expect(missing.error).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    engine.cms.failWith = 503;
    const down = await run([node('c', 'EntityCreate', { fields: { title: 'x' } })]);
    engine.cms.failWith = undefined;
    expect(down.error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true });
  });
});

describe('MCP components against a fake MCP registry', () => {
  it('discovers servers, calls a tool and reads a file through the registry', async () => {
    const done = await run(
      [
        node('servers', 'MCPServerQuery', { capability: 'echo' }),
        node('call', 'MCPToolCall', { tool: 'echo', params: { message: 'hi {{servers.total}}' } }),
        node('read', 'FileSystemRead', { path: '/tmp/notes.txt' }),
      ],
      chain('servers', 'call'),
    );
    expect(done.status).toBe('completed');
    expect(done.result.servers).toMatchObject({ total: 1, servers: [{ id: engine.mcp.connectionId, name: 'everything' }] });
    expect(done.result.call).toMatchObject({ text: 'Echo: hi 1', connectionId: engine.mcp.connectionId });
    expect(done.result.read.content).toBe('contents of /tmp/notes.txt');
    const toolCall = engine.mcp.requests.find((r) => r.path.endsWith('/tools/echo/call'));
    expect(toolCall?.body).toEqual({ arguments: { message: 'hi 1' } });
  });

  it('fails on a tool error and when no server offers the tool', async () => {
    expect((await run([node('bad', 'MCPToolCall', { tool: 'explode' })])).error).toMatchObject({ code: 'TOOL_ERROR', retryable: false });
    expect((await run([node('none', 'MCPToolCall', { tool: 'nothing' })])).error).toMatchObject({ code: 'NO_PROVIDER' });
  });
});

describe('ScmAPI against a fake GitLab', () => {
  it('reads a project and creates an issue; a missing project is NOT_FOUND; missing params are INVALID_INPUT', async () => {
    const done = await run([
      node('project', 'ScmAPI', { action: 'get_project', params: { project: 'group/app' } }),
      node('issue', 'ScmAPI', { action: 'create_issue', params: { project: 'group/app', title: 'From a workflow' } }),
    ]);
    expect(done.result.project.response).toMatchObject({ id: 7, name: 'app' });
    expect(done.result.issue.response).toMatchObject({ iid: 1, title: 'From a workflow' });
    expect((await run([node('p', 'ScmAPI', { action: 'get_project', params: { project: 'other/none' } })])).error.code).toBe('NOT_FOUND');
    expect((await run([node('p', 'ScmAPI', { action: 'create_issue', params: { project: 'group/app' } })])).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('title'),
    });
  });
});

describe('AI components against a fake Ollama API and images endpoint', () => {
  it('embeds, stores a collection and finds the nearest documents by cosine similarity', async () => {
    const collection = uniqueName('pets');
    const put = await request(engine.app)
      .put(`/api/v1/collections/${collection}/documents`)
      .set('Authorization', engine.auth())
      .send({
        documents: [
          { id: 'c', text: 'the cat sleeps' },
          { id: 'd', text: 'a dog barks' },
          { id: 'v', vector: [0.1, 0.1, 1], text: 'other' },
        ],
      });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ collection, upserted: 3, total: 3, owner: engine.user, team: null });
    const done = await run(
      [
        node('embed', 'Embeddings', { text: 'my dog' }),
        node('search', 'VectorSearch', { query: '{{embed.vector}}', collection, topK: 2 }),
        node('byText', 'VectorSearch', { query: 'cat?', collection, topK: 1 }),
      ],
      chain('embed', 'search'),
    );
    expect(done.status).toBe('completed');
    expect(done.result.embed).toMatchObject({ vector: [0, 1, 0], dimensions: 3 });
    expect(done.result.search.results.map((r: { id: string }) => r.id)).toEqual(['d', 'v']);
    expect(done.result.search.results[0].score).toBeCloseTo(1);
    expect(done.result.byText.results[0]).toMatchObject({ id: 'c', text: 'the cat sleeps' });
    expect((await run([node('s', 'VectorSearch', { query: [1, 0, 0], collection: uniqueName('none') })])).error.code).toBe('NOT_FOUND');
    const mixed = await request(engine.app)
      .put(`/api/v1/collections/${collection}/documents`)
      .set('Authorization', engine.auth())
      .send({ documents: [{ id: 'x', vector: [1, 2] }] });
    expect(mixed.status).toBe(200);
    expect(
      (
        await request(engine.app)
          .put('/api/v1/collections/bad name/documents')
          .set('Authorization', engine.auth())
          .send({ documents: [{ id: 'x', vector: [1] }] })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(engine.app)
          .put(`/api/v1/collections/${collection}/documents`)
          .set('Authorization', engine.auth(['workflows:read']))
          .send({ documents: [{ id: 'x', vector: [1] }] })
      ).status,
    ).toBe(403);
  });

  it('generates an image through the configured endpoint', async () => {
    const done = await run([node('img', 'ImageGen', { prompt: 'a red fox', size: '256x256' })]);
    expect(done.result.img.image_url).toBe('https://images.test/a%20red%20fox.png');
    expect(engine.images.requests[0].body).toMatchObject({ prompt: 'a red fox', size: '256x256', n: 1 });
  });
});

describe('logic components', () => {
  it('loops over items, runs parallel tasks and merges', async () => {
    const done = await run(
      [
        node('loop', 'Loop', { items: ['a', 'b', 'c'], body: { type: 'LLMNode', data: { prompt: 'item {{item}}' } }, concurrency: 2 }),
        node('par', 'Parallel', {
          tasks: [
            { type: 'LLMNode', data: { prompt: 'p1' } },
            { type: 'Condition', data: { condition: '1 + 1 = 2' } },
          ],
        }),
        node('merge', 'Merge', { inputs: ['{{loop.results}}', '{{par.results}}'] }),
      ],
      [
        { source: 'loop', target: 'merge' },
        { source: 'par', target: 'merge' },
      ],
    );
    expect(done.status).toBe('completed');
    expect(done.result.loop.results.map((r: { completion: string }) => r.completion)).toEqual(['echo(item a)', 'echo(item b)', 'echo(item c)']);
    expect(done.result.par.results).toEqual([expect.objectContaining({ completion: 'echo(p1)' }), { result: true, value: true }]);
    expect(done.result.merge.merged).toHaveLength(5);
  });

  it('fails a Loop whose body is not a component', async () => {
    const done = await run([node('loop', 'Loop', { items: [1], body: { type: 'Nope', data: {} } })]);
    expect(done.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('Nope') });
  });
});

describe('unconfigured backends', () => {
  it('fail with CONFIGURATION_ERROR', async () => {
    await engine.restart({ IMAGE_API_URL: '', CMS_URL: '', SCM_URL: '' });
    const done = await run([node('img', 'ImageGen', { prompt: 'x' })]);
    expect(done.error).toMatchObject({ code: 'CONFIGURATION_ERROR', retryable: false, message: expect.stringContaining('IMAGE_API_URL') });
    expect((await run([node('c', 'EntityCreate', { fields: {} })])).error.message).toContain('CMS_URL');
    expect((await run([node('s', 'ScmAPI', { action: 'get_project', params: { project: 'x' } })])).error.message).toContain('SCM_URL');
  });
});
