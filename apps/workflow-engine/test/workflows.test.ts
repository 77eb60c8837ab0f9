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
