import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { goodSecurity, manifest, startRegistry, type Harness } from './fixtures';
import { prefixQuery } from '../src/agents/agent-query';

describe('prefixQuery', () => {
  it('keeps only words, each as a prefix, so no input is a tsquery syntax error', () => {
    expect(prefixQuery('Code review')).toBe('code:* & review:*');
    expect(prefixQuery("a & b | !c:* 'd'")).toBe('a:* & b:* & c:* & d:*');
    expect(prefixQuery('  ()&|! ')).toBeUndefined();
  });
});

describe('search', () => {
  let h: Harness;
  let reader: string;
  let ns: string;
  let word: string;
  const names = (res: request.Response) => res.body.items.map((item: { name: string }) => item.name);

  beforeAll(async () => {
    h = await startRegistry();
    reader = h.user(['registry:read']).auth;
    const owner = h.user();
    ns = uniqueName('search');
    word = `zq${ns.slice(-8).replace(/[^a-z0-9]/g, '')}`;
    const docs = [
      manifest({
        namespace: ns,
        name: `${word}-bot`,
        version: '1.0.0',
        description: 'Something unrelated',
        kind: 'Agent',
        agentKind: 'assistant',
        security: goodSecurity('tier_1_read', ['browser']),
      }),
      manifest({
        namespace: ns,
        name: 'helper',
        version: '1.0.0',
        description: `Works with ${word} data`,
        kind: 'Task',
        security: goodSecurity('tier_3_write_elevated', ['database-read']),
      }),
      manifest({
        namespace: ns,
        name: 'tagged',
        version: '1.0.0',
        description: 'Tag match',
        tags: [word],
        agentKind: 'reviewer',
        governance: { compliance: { frameworks: ['HIPAA'] } },
      }),
      manifest({ namespace: ns, name: 'labelled', version: '1.0.0', description: 'Label match', labels: { domain: word } }),
      manifest({ namespace: ns, name: 'unrelated', version: '1.0.0', description: 'Nothing to see' }),
    ];
    for (const doc of docs) expect((await h.publish(owner.auth, doc)).status).toBe(201);
    expect((await h.publish(owner.auth, manifest({ namespace: uniqueName('other'), name: `${word}-elsewhere`, version: '1.0.0' }))).status).toBe(201);
  });
  afterAll(() => h.stop());

  it('needs q (400), a token (401) and registry:read (403)', async () => {
    const missing = await request(h.app).get('/api/v1/search').set('Authorization', reader);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues[0].path).toBe('query.q');
    expect((await request(h.app).get('/api/v1/search?q=%20%20').set('Authorization', reader)).status).toBe(400);
    expect((await request(h.app).get('/api/v1/search?q=x')).status).toBe(401);
    expect((await request(h.app).get('/api/v1/search?q=x').set('Authorization', h.user([]).auth)).status).toBe(403);
  });

  it('finds matches in name, description, tags and labels, ranks a name match first, with totals', async () => {
    const res = await request(h.app).get(`/api/v1/search?q=${word}&namespace=${ns}`).set('Authorization', reader);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(names(res)[0]).toBe(`${word}-bot`);
    expect(names(res)).toEqual(expect.arrayContaining(['helper', 'tagged', 'labelled']));
    expect(names(res)).not.toContain('unrelated');
    const ranks = res.body.items.map((item: { rank: number }) => item.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    expect(res.body.query).toBe(word);
  });

  it('matches capabilities, prefixes and stems; a query of symbols finds nothing', async () => {
    const byCapability = await request(h.app).get(`/api/v1/search?q=database-read&namespace=${ns}`).set('Authorization', reader);
    expect(names(byCapability)).toEqual(['helper']);
    const prefix = await request(h.app)
      .get(`/api/v1/search?q=${word.slice(0, 6)}&namespace=${ns}`)
      .set('Authorization', reader);
    expect(prefix.body.total).toBe(4);
    const stem = await request(h.app).get(`/api/v1/search?q=works%20${word}&namespace=${ns}`).set('Authorization', reader);
    expect(names(stem)).toEqual(['helper']);
    const symbols = await request(h.app)
      .get(`/api/v1/search?q=${encodeURIComponent('&|!():*')}`)
      .set('Authorization', reader);
    expect(symbols.status).toBe(200);
    expect(symbols.body).toMatchObject({ total: 0, items: [] });
  });

  it('applies the filters: kind, agentKind, tier, capability, compliance, certified', async () => {
    const q = `/api/v1/search?q=${word}&namespace=${ns}`;
    const cases: Array<[string, string[]]> = [
      ['kind=Task', ['helper']],
      ['agentKind=reviewer', ['tagged']],
      ['tier=tier_1_read', [`${word}-bot`]],
      ['capability=browser', [`${word}-bot`]],
      ['compliance=hipaa', ['tagged']],
      ['compliance=HIPAA', ['tagged']],
      ['certified=true', []],
    ];
    for (const [filter, expected] of cases) {
      const res = await request(h.app).get(`${q}&${filter}`).set('Authorization', reader);
      expect([filter, names(res)]).toEqual([filter, expected]);
    }
    expect((await request(h.app).get(`${q}&certified=false`).set('Authorization', reader)).body.total).toBe(4);
    expect((await request(h.app).get(`${q}&tier=tier_9`).set('Authorization', reader)).status).toBe(400);
  });

  it('pages with limit and offset while keeping the total', async () => {
    const first = await request(h.app).get(`/api/v1/search?q=${word}&namespace=${ns}&limit=3`).set('Authorization', reader);
    const second = await request(h.app).get(`/api/v1/search?q=${word}&namespace=${ns}&limit=3&offset=3`).set('Authorization', reader);
    expect(first.body.items).toHaveLength(3);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.total).toBe(4);
    expect(new Set([...names(first), ...names(second)]).size).toBe(4);
    const past = await request(h.app).get(`/api/v1/search?q=${word}&namespace=${ns}&offset=50`).set('Authorization', reader);
    expect(past.body).toMatchObject({ total: 4, items: [] });
  });

  it('follows agent-level metadata and deletion', async () => {
    const owner = h.user();
    const own = uniqueName('search');
    const keyword = `kw${own.slice(-8).replace(/[^a-z0-9]/g, '')}`;
    await h.publish(owner.auth, manifest({ namespace: own, name: 'plain', version: '1.0.0' }));
    await request(h.app)
      .put(`/api/v1/agents/${own}/plain`)
      .set('Authorization', owner.auth)
      .send({ keywords: [keyword], compliance: ['gdpr'] })
      .expect(200);
    const found = await request(h.app).get(`/api/v1/search?q=${keyword}&compliance=gdpr`).set('Authorization', reader);
    expect(names(found)).toEqual(['plain']);
    await request(h.app).delete(`/api/v1/agents/${own}/plain`).set('Authorization', owner.auth).expect(204);
    expect((await request(h.app).get(`/api/v1/search?q=${keyword}`).set('Authorization', reader)).body.total).toBe(0);
  });

  it('takes the filters in one `filters` parameter too (key:value pairs or JSON), and refuses bad or conflicting ones', async () => {
    const q = `/api/v1/search?q=${word}&namespace=${ns}`;
    const pairs = await request(h.app)
      .get(`${q}&filters=${encodeURIComponent('kind:Task, tier:tier_3_write_elevated')}`)
      .set('Authorization', reader);
    expect(names(pairs)).toEqual(['helper']);
    const json = await request(h.app)
      .get(`${q}&filters=${encodeURIComponent('{"agentKind":"reviewer","certified":false}')}`)
      .set('Authorization', reader);
    expect(names(json)).toEqual(['tagged']);
    const same = await request(h.app).get(`${q}&kind=Task&filters=kind:Task`).set('Authorization', reader);
    expect(names(same)).toEqual(['helper']);
    for (const filters of ['kind:Robot', 'colour:blue', 'kind', '{"kind":', '[1]', 'certified:maybe']) {
      const res = await request(h.app)
        .get(`${q}&filters=${encodeURIComponent(filters)}`)
        .set('Authorization', reader);
      expect([filters, res.status, res.body.error?.details?.issues?.[0]?.path]).toEqual([filters, 400, 'query.filters']);
    }
    const conflict = await request(h.app).get(`${q}&kind=Agent&filters=kind:Task`).set('Authorization', reader);
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.details.issues[0].code).toBe('conflicting_filters');
  });
});
