import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness, errorOf } from './support/harness';

/** Every call that produced tokens is recorded in Postgres with its cost. */
describe('usage records', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { LOCAL_MODELS_PRICES: JSON.stringify({ 'llama3.2': { input: 2, output: 4 } }) } });
  });
  afterAll(() => h.stop());

  it('records embedded and Ollama calls, streamed or not, with tokens and cost, and sums them', async () => {
    const subject = uniqueName('user');
    const token = h.issuer.bearer(['models:read', 'models:invoke'], { sub: subject });
    await request(h.url)
      .post('/api/generate')
      .set('Authorization', token)
      .send({ model: 'tiny', prompt: 'hello', options: { num_predict: 3, temperature: 0 } })
      .expect(200);
    await request(h.url).post('/api/generate').set('Authorization', token).send({ model: 'llama3.2', prompt: 'one two three' }).expect(200);
    await request(h.url)
      .post('/api/chat')
      .set('Authorization', token)
      .send({ model: 'llama3.2', messages: [{ role: 'user', content: 'a b' }], stream: false })
      .expect(200);
    await request(h.url)
      .post('/invoke')
      .set('Authorization', token)
      .send({ tool: 'embed', input: { prompt: 'x y', model: 'nomic-embed-text' } })
      .expect(200);

    const list = await eventually(async () => {
      const res = await request(h.url).get('/usage').set('Authorization', token);
      return res.body.total === 4 && res.body;
    }, 20_000);
    const byEndpoint = Object.fromEntries(list.items.map((item: { endpoint: string }) => [item.endpoint, item]));
    expect(byEndpoint.generate).toBeDefined();
    const records = list.items as Array<Record<string, unknown>>;
    expect(records.find((item) => item.backend === 'embedded')).toMatchObject({
      subject,
      endpoint: 'generate',
      model: 'tiny:latest',
      completionTokens: 3,
      cost: 0,
      status: 'ok',
    });
    // The streamed Ollama answer's counts come from its last line: 3 prompt words, 4 answer words.
    expect(records.find((item) => item.endpoint === 'generate' && item.backend === 'ollama')).toMatchObject({
      model: 'llama3.2:latest',
      promptTokens: 3,
      completionTokens: 4,
      cost: (3 * 2 + 4 * 4) / 1000,
    });
    expect(byEndpoint.chat).toMatchObject({ promptTokens: 2, completionTokens: 3, cost: (2 * 2 + 3 * 4) / 1000 });
    expect(byEndpoint['invoke:embed']).toMatchObject({ model: 'nomic-embed-text:latest', promptTokens: 2, completionTokens: 0, cost: 0 });
    expect(list.totals).toMatchObject({ calls: 4, cost: (22 + 16) / 1000 });
    expect(list.byModel.map((row: { model: string; calls: number }) => [row.model, row.calls])).toEqual([
      ['llama3.2:latest', 2],
      ['nomic-embed-text:latest', 1],
      ['tiny:latest', 1],
    ]);

    const page = await request(h.url).get('/usage?limit=1&offset=1&model=llama3.2:latest').set('Authorization', token);
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.items).toHaveLength(1);
    const none = await request(h.url)
      .get(`/usage?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
      .set('Authorization', token);
    expect(none.body.total).toBe(0);
  });

  it("shows a caller only their own calls; models:admin sees and filters everyone's", async () => {
    const alice = uniqueName('alice');
    const bob = uniqueName('bob');
    const as = (sub: string, permissions = ['models:read', 'models:invoke']) => h.issuer.bearer(permissions, { sub });
    await request(h.url)
      .post('/invoke')
      .set('Authorization', as(alice))
      .send({ tool: 'generate', input: { prompt: 'hi', model: 'llama3.2' } })
      .expect(200);
    await request(h.url)
      .post('/invoke')
      .set('Authorization', as(bob))
      .send({ tool: 'generate', input: { prompt: 'hi', model: 'llama3.2' } })
      .expect(200);

    await eventually(async () => (await request(h.url).get('/usage').set('Authorization', as(bob))).body.total === 1, 20_000);
    const own = await request(h.url).get('/usage').set('Authorization', as(alice));
    expect(own.body.items.map((item: { subject: string }) => item.subject)).toEqual([alice]);

    const peek = await request(h.url).get(`/usage?subject=${bob}`).set('Authorization', as(alice));
    expect(peek.status).toBe(403);
    expect(errorOf(peek.body).details.required).toBe('models:admin');

    const admin = await request(h.url)
      .get(`/usage?subject=${bob}`)
      .set('Authorization', as(uniqueName('ops'), ['models:admin', 'models:read']));
    expect(admin.status).toBe(200);
    expect(admin.body.items).toEqual([expect.objectContaining({ subject: bob, endpoint: 'invoke:generate', backend: 'ollama' })]);
  });

  it('rejects bad filters', async () => {
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'from=yesterday']) {
      const res = await request(h.url).get(`/usage?${query}`).set('Authorization', h.reader);
      expect([query, res.status]).toEqual([query, 400]);
    }
    expect((await request(h.url).get('/usage')).status).toBe(401);
    expect(
      (
        await request(h.url)
          .get('/usage')
          .set('Authorization', h.issuer.bearer(['models:invoke']))
      ).status,
    ).toBe(403);
  });
});

describe('UsageService.flush', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false });
  });
  afterAll(() => h.stop());

  it('keeps writing to Postgres after a flush that found nothing to write', async () => {
    const { UsageService } = await import('../src/usage/usage.service');
    const { UsageRepository } = await import('../src/usage/usage.repository');
    const repository = new UsageRepository(h.service.infra.db as never);
    const usage = new UsageService(repository, { cost: () => 0 } as never, h.service.infra.logger, { flushMs: 60_000, maxBuffered: 100 });
    const subject = uniqueName('flush');
    await usage.flush(); // nothing buffered yet
    usage.record({
      subject,
      endpoint: '/api/generate',
      model: 'm',
      backend: 'ollama',
      promptTokens: 1,
      completionTokens: 2,
      durationMs: 3,
      status: 'ok',
    } as never);
    await usage.flush();
    const stored = await repository.page({ subject }, 10, 0);
    expect(stored.total).toBe(1);
    await usage.close();
  });
});
