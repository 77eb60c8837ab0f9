import request from 'supertest';
import { startRegistry, type Harness } from './fixtures';

describe('edge inputs never reach a 500', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it('answers huge offsets, long and odd queries, and odd paths with 2xx/4xx', async () => {
    const { auth } = h.user(['registry:read']);
    const paths = [
      '/api/v1/agents?offset=9999999999',
      '/api/v1/search?q=agent&offset=9999999999',
      `/api/v1/search?q=${'a'.repeat(256)}`,
      `/api/v1/search?q=${'a'.repeat(257)}`,
      `/api/v1/search?q=${encodeURIComponent('\'; DROP TABLE "Agent"; --')}`,
      '/api/v1/search?q=%00',
      '/api/v1/search?q[]=a&q[]=b',
      '/api/v1/agents?namespace[a]=b',
      '/api/v1/agents/ns/name/versions?offset=9999999999',
      '/api/v1/certifications?offset=9999999999',
      '/api/v1/agents/ns/name/versions/1.0.0%2Bbuild.1/manifest',
      `/api/v1/agents/${'a'.repeat(64)}/x`,
      '/api/v1/agents?compliance=%00',
      '/api/v1/agents?capability=a%00b',
      '/api/v1/search?q=a&agentKind=%00',
    ];
    for (const path of paths) {
      const res = await request(h.app).get(path).set('Authorization', auth);
      expect([path, res.status < 500]).toEqual([path, true]);
    }
  });

  it('refuses NUL characters in manifests and metadata with 400 instead of failing in Postgres', async () => {
    const owner = h.user();
    const ns = `nul-${Date.now().toString(36)}`;
    const text = `{"apiVersion":"std/v0.4.7","kind":"Agent","metadata":{"name":"agent","namespace":"${ns}","version":"1.0.0","description":"a\\u0000b"}}`;
    const res = await request(h.app).post('/api/v1/agents').set('Authorization', owner.auth).set('Content-Type', 'application/json').send(text);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].code).toBe('registry.nul_character');
    const literal = text.replace('a\\u0000b', 'a\\\\u0000b');
    expect((await request(h.app).post('/api/v1/agents').set('Authorization', owner.auth).set('Content-Type', 'application/json').send(literal)).status).toBe(
      201,
    );
    const put = await request(h.app).put(`/api/v1/agents/${ns}/agent`).set('Authorization', owner.auth).send({ displayName: 'a\u0000b' });
    expect(put.status).toBe(400);
  });

  it('refuses a YAML alias bomb with 400 naming the aliases, instead of a 500', async () => {
    const owner = h.user();
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const bomb = levels
      .map((name, i) =>
        i === 0
          ? `${name}: &${name} ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`
          : `${name}: &${name} [${Array(9)
              .fill(`*${levels[i - 1]}`)
              .join(',')}]`,
      )
      .join('\n');
    const res = await h.publish(owner.auth, bomb);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(JSON.stringify(res.body)).toContain('aliases expand too far');
  });
});
