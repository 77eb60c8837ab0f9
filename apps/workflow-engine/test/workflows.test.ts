import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(11);
});
afterAll(() => engine.stop());

const post = (body: object, auth = engine.auth()) => request(engine.app).post('/api/v1/workflows').set('Authorization', auth).send(body);
const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

describe('POST /api/v1/workflows', () => {
  it('stores a valid flow and answers active, version and endpoints', async () => {
    const res = await post({
      name: 'Summarise',
      description: 'two steps',
      category: 'ai_workflows',
      flow: {
        nodes: [node('a', 'LLMNode', { prompt: 'hi' }), node('b', 'LLMNode', { prompt: 'again {{a.completion}}' })],
        edges: [{ source: 'a', target: 'b' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Summarise',
      status: 'active',
      version: '1.0.0',
      endpoints: { execute: `/api/v1/workflows/${res.body.id}/execute`, monitor: '/api/v1/executions/{executionId}/stream' },
    });
    expect(res.body.webhookSecret).toMatch(/^whsec_/);
  });

  const invalid: Array<[string, unknown, string, string]> = [
    ['an unknown component type', { nodes: [node('a', 'Teleport')], edges: [] }, 'a', 'nodes[0].type'],
    ['data failing the input schema', { nodes: [node('a', 'LLMNode', { prompt: 42 })], edges: [] }, 'a', 'nodes[0].data.prompt'],
    ['a missing required field', { nodes: [node('x', 'EntityCreate', { bundle: 'article' })], edges: [] }, 'x', 'nodes[0].data.fields'],
    ['an edge to a missing node', { nodes: [node('a', 'Merge', { inputs: [] })], edges: [{ source: 'a', target: 'ghost' }] }, 'ghost', 'edges[0].target'],
    [
      'a cycle',
      {
        nodes: [node('a', 'Merge', { inputs: [] }), node('b', 'Merge', { inputs: [] })],
        edges: [
          { source: 'a', target: 'b' },
          { source: 'b', target: 'a' },
        ],
      },
      'a',
      'edges',
    ],
    [
      'a reference to a node that is not upstream',
      { nodes: [node('a', 'LLMNode', { prompt: 'x' }), node('b', 'LLMNode', { prompt: '{{a.completion}}' })], edges: [] },
      'b',
      'nodes[1].data.prompt',
    ],
    [
      'a reference to an output the component lacks',
      { nodes: [node('a', 'LLMNode', { prompt: 'x' }), node('b', 'LLMNode', { prompt: '{{a.vector}}' })], edges: [{ source: 'a', target: 'b' }] },
      'b',
      'nodes[1].data.prompt',
    ],
    ['a reference to no node', { nodes: [node('a', 'Embeddings', { text: '{{nobody.completion}}' })], edges: [] }, 'a', 'nodes[0].data.text'],
  ];
  it.each(invalid)('refuses %s, naming the node and the field', async (_label, flow, nodeId, field) => {
    const res = await post({ name: uniqueName('bad'), category: 'testing', flow });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    expect(res.body.error.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ nodeId, path: `body.flow.${field}` })]));
    expect(res.body.error.message).toContain(nodeId);
  });

  it('accepts a whole-template field of another type, checked at run time', async () => {
    const res = await post({
      name: uniqueName('vec'),
      category: 'testing',
      flow: {
        nodes: [node('e', 'Embeddings', { text: 'cat' }), node('s', 'VectorSearch', { query: '{{e.vector}}', collection: 'c' })],
        edges: [{ source: 'e', target: 's' }],
      },
    });
    expect(res.status).toBe(201);
  });

  it('refuses a body without flow or template, and unknown templates', async () => {
    expect((await post({ name: 'x', category: 'c' })).status).toBe(400);
    const unknown = await post({ name: 'x', category: 'c', templateId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues[0].path).toBe('body.templateId');
  });

  it('needs a token and workflows:write', async () => {
    expect((await request(engine.app).post('/api/v1/workflows').send({})).status).toBe(401);
    const forbidden = await post({ name: 'x', category: 'c', flow: { nodes: [node('a', 'Merge', { inputs: [] })] } }, engine.auth(['workflows:read']));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('insufficient_permissions');
  });
});

describe('catalog and templates', () => {
  it('lists workflows with components, complexity, tags and filters', async () => {
    const category = uniqueName('cat');
    await post({ name: 'small', category, tags: ['demo'], flow: { nodes: [node('a', 'Merge', { inputs: [1] })] } });
    await post({ name: 'loop', category, flow: { nodes: [node('a', 'Loop', { items: [1, 2], body: { type: 'Merge', data: { inputs: ['{{item}}'] } } })] } });
    const all = await request(engine.app)
      .get(`/api/v1/workflows/catalog?category=${category}`)
      .set('Authorization', engine.auth(['workflows:read']));
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    const small = all.body.workflows.find((w: { name: string }) => w.name === 'small');
    expect(small).toMatchObject({ category, complexity: 'simple', components: 1, tags: ['demo', 'logic'] });
    expect(typeof small.estimatedDuration).toBe('number');
    const advanced = await request(engine.app)
      .get(`/api/v1/workflows/catalog?category=${category}&complexity=advanced`)
      .set('Authorization', engine.auth(['workflows:read']));
    expect(advanced.body.workflows.map((w: { name: string }) => w.name)).toEqual(['loop']);
    expect((await request(engine.app).get('/api/v1/workflows/catalog?complexity=huge').set('Authorization', engine.auth())).status).toBe(400);
    expect((await request(engine.app).get('/api/v1/workflows/catalog')).status).toBe(401);
  });

  it('ships runnable templates and counts workflows created from them', async () => {
    const before = await request(engine.app)
      .get('/api/v1/workflows/templates')
      .set('Authorization', engine.auth(['workflows:read']));
    expect(before.status).toBe(200);
    const ids = before.body.templates.map((t: { id: string }) => t.id);
    expect(ids).toEqual(expect.arrayContaining(['cms-content-generation', 'vector-qa', 'mcp-tool-pipeline']));
    const used = before.body.templates.find((t: { id: string }) => t.id === 'vector-qa');
    const created = await post({ name: uniqueName('qa'), category: 'ai_workflows', templateId: 'vector-qa' });
    expect(created.status).toBe(201);
    const after = await request(engine.app)
      .get('/api/v1/workflows/templates')
      .set('Authorization', engine.auth(['workflows:read']));
    expect(after.body.templates.find((t: { id: string }) => t.id === 'vector-qa').usageCount).toBe(used.usageCount + 1);
    expect(used).toMatchObject({ components: 3, category: 'ai_workflows' });
  });
});

describe("the editor's reads: component library, a workflow's flow, its execution history", () => {
  const read = (path: string, auth = engine.auth(['workflows:read'])) => request(engine.app).get(`/api/v1${path}`).set('Authorization', auth);

  it('lists the 16 components with their outputs and the JSON Schema of their data', async () => {
    const res = await read('/components');
    expect(res.status).toBe(200);
    expect(res.body.components).toHaveLength(16);
    const llm = res.body.components.find((c: { type: string }) => c.type === 'LLMNode');
    expect(llm).toMatchObject({ group: 'AI', outputs: ['completion', 'model', 'tokens'] });
    expect(llm.inputSchema).toMatchObject({
      type: 'object',
      required: ['prompt'],
      properties: { prompt: { type: 'string' }, temperature: { type: 'number', maximum: 2 } },
    });
    const image = res.body.components.find((c: { type: string }) => c.type === 'ImageGen');
    // A field with a default is optional on input, and its choices are named.
    expect(image.inputSchema.required).toEqual(['prompt']);
    expect(image.inputSchema.properties.size).toMatchObject({ enum: ['256x256', '512x512', '1024x1024'], default: '1024x1024' });
    expect((await request(engine.app).get('/api/v1/components')).status).toBe(401);
    expect((await read('/components', engine.auth([]))).status).toBe(403);
  });

  it('returns a stored flow exactly as posted, positions included', async () => {
    const flow = {
      nodes: [
        { id: 'a', type: 'Merge', position: { x: 12.5, y: -40 }, data: { inputs: [1] } },
        {
          id: 'b',
          type: 'Condition',
          position: { x: 300, y: 80 },
          data: { condition: 'value > 1', input: '{{a.merged}}' },
          retry: { enabled: true, maxAttempts: 2, backoff: 'exponential', initialDelay: 10 },
        },
      ],
      edges: [{ id: 'a-b', source: 'a', target: 'b' }],
    };
    const created = await post({ name: uniqueName('detail'), category: 'testing', tags: ['x'], flow });
    const res = await read(`/workflows/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, category: 'testing', tags: ['x'], status: 'active', owner: engine.user, team: null, flow });
    expect(res.body.webhookSecret).toBeUndefined();
    const stranger = await read(`/workflows/${created.body.id}`, engine.issuer.bearer(['workflows:read'], { sub: uniqueName('stranger') }));
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.message).toBe(`No workflow ${created.body.id}`);
    expect((await read('/workflows/not-a-uuid')).status).toBe(400);
    expect((await read('/workflows/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it("lists a workflow's runs newest first, only those the caller may read", async () => {
    const created = await post({ name: uniqueName('history'), category: 'testing', flow: { nodes: [node('a', 'Merge', { inputs: [1] })] } });
    const first = (await engine.execute(created.body.id, { options: { async: false } })).body;
    const second = (await engine.execute(created.body.id, { options: { async: false } })).body;
    const res = await read(`/workflows/${created.body.id}/executions`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(res.body.executions.map((e: { executionId: string }) => e.executionId)).toEqual([second.executionId, first.executionId]);
    expect(res.body.executions[0]).toMatchObject({ workflowId: created.body.id, status: 'completed', owner: engine.user, batchId: null });
    expect(typeof res.body.executions[0].duration).toBe('number');
    const paged = await read(`/workflows/${created.body.id}/executions?limit=1&offset=1`);
    expect(paged.body.executions.map((e: { executionId: string }) => e.executionId)).toEqual([first.executionId]);
    expect((await read(`/workflows/${created.body.id}/executions?limit=501`)).status).toBe(400);
    const stranger = engine.issuer.bearer(['workflows:read'], { sub: uniqueName('stranger') });
    expect((await read(`/workflows/${created.body.id}/executions`, stranger)).status).toBe(404);
  });
});
