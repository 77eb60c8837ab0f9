import { uniqueName } from '@platform/testing';
import { createHash } from 'node:crypto';
import request from 'supertest';
import YAML from 'yaml';
import { manifest, yamlManifest, startRegistry, type Harness } from './fixtures';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe('versions and manifests', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  async function agentWith(versions: string[]) {
    const owner = h.user();
    const ns = uniqueName('ns');
    expect((await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: versions[0] }))).status).toBe(201);
    for (const version of versions.slice(1)) {
      const res = await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version }), `/api/v1/agents/${ns}/agent/versions`);
      expect(res.status).toBe(201);
    }
    return { owner, ns, base: `/api/v1/agents/${ns}/agent` };
  }

  it('lists versions in semantic-version order, and latest is the highest non-prerelease', async () => {
    const { owner, base } = await agentWith(['1.0.0', '1.10.0', '1.2.0', '2.0.0-rc.1', '1.9.9', '2.0.0-beta.2', '0.9.0']);
    const res = await request(h.app).get(`${base}/versions`).set('Authorization', owner.auth);
    expect(res.status).toBe(200);
    expect(res.body.items.map((v: { version: string }) => v.version)).toEqual(['2.0.0-rc.1', '2.0.0-beta.2', '1.10.0', '1.9.9', '1.2.0', '1.0.0', '0.9.0']);
    expect(res.body).toMatchObject({ total: 7, latest: '1.10.0' });
    expect(res.body.items.find((v: { version: string }) => v.version === '1.10.0').latest).toBe(true);
    const asc = await request(h.app).get(`${base}/versions?order=asc&prerelease=false&limit=2&offset=1`).set('Authorization', owner.auth);
    expect(asc.body.items.map((v: { version: string }) => v.version)).toEqual(['1.0.0', '1.2.0']);
    expect(asc.body.total).toBe(5);
    const latest = await request(h.app).get(`${base}/versions/latest`).set('Authorization', owner.auth);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ version: '1.10.0', latest: true, manifest: { metadata: { version: '1.10.0' } } });
    const agent = await request(h.app).get(base).set('Authorization', owner.auth);
    expect(agent.body.latestVersion).toBe('1.10.0');
  });

  it('has no latest while only pre-releases are published', async () => {
    const { owner, base } = await agentWith(['1.0.0-alpha.1']);
    const latest = await request(h.app).get(`${base}/versions/latest`).set('Authorization', owner.auth);
    expect(latest.status).toBe(404);
    expect((await request(h.app).get(`${base}/versions/1.0.0-alpha.1`).set('Authorization', owner.auth)).status).toBe(200);
  });

  it('answers 404 for unknown agents and versions, 400 for a malformed version', async () => {
    const { owner, base } = await agentWith(['1.0.0']);
    expect((await request(h.app).get(`${base}/versions/9.9.9`).set('Authorization', owner.auth)).status).toBe(404);
    expect((await request(h.app).get(`${base}/versions/9.9.9/manifest`).set('Authorization', owner.auth)).status).toBe(404);
    expect(
      (
        await request(h.app)
          .get(`/api/v1/agents/${uniqueName('ns')}/x/versions`)
          .set('Authorization', owner.auth)
      ).status,
    ).toBe(404);
    const malformed = await request(h.app).get(`${base}/versions/v1`).set('Authorization', owner.auth);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.issues[0].path).toBe('params.version');
    expect((await request(h.app).get(`${base}/versions`)).status).toBe(401);
  });

  it('publishes through /versions only into an existing agent whose name and namespace match the path', async () => {
    const { owner, ns, base } = await agentWith(['1.0.0']);
    const missing = await h.publish(owner.auth, manifest({ namespace: ns, name: 'other', version: '1.0.0' }), `/api/v1/agents/${ns}/other/versions`);
    expect(missing.status).toBe(404);
    const wrongName = await h.publish(owner.auth, manifest({ namespace: ns, name: 'other', version: '1.1.0' }), `${base}/versions`);
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.error.details.issues[0].code).toBe('registry.metadata.name.mismatch');
    const wrongNs = await h.publish(owner.auth, manifest({ namespace: uniqueName('ns'), name: 'agent', version: '1.1.0' }), `${base}/versions`);
    expect(wrongNs.status).toBe(400);
    const noNs = await h.publish(owner.auth, manifest({ name: 'agent', version: '1.1.0' }), `${base}/versions`);
    expect(noNs.status).toBe(201);
    const notOwner = await h.publish(h.user().auth, manifest({ namespace: ns, name: 'agent', version: '1.2.0' }), `${base}/versions`);
    expect(notOwner.status).toBe(404);
    const duplicate = await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.1.0' }), `${base}/versions`);
    expect(duplicate.status).toBe(409);
  });

  it('unpublishes a version: gone from reads, latest moves back, its number stays taken', async () => {
    const { owner, ns, base } = await agentWith(['1.0.0', '1.1.0']);
    expect((await request(h.app).delete(`${base}/versions/1.1.0`).set('Authorization', h.user().auth)).status).toBe(404);
    expect((await request(h.app).delete(`${base}/versions/latest`).set('Authorization', owner.auth)).status).toBe(400);
    expect((await request(h.app).delete(`${base}/versions/1.1.0`).set('Authorization', owner.auth)).status).toBe(204);
    expect((await request(h.app).delete(`${base}/versions/1.1.0`).set('Authorization', owner.auth)).status).toBe(404);
    const gone = await request(h.app).get(`${base}/versions/1.1.0`).set('Authorization', owner.auth);
    expect(gone.status).toBe(404);
    expect(gone.body.error.details).toEqual({ unpublished: true });
    expect((await request(h.app).get(`${base}/versions/latest`).set('Authorization', owner.auth)).body.version).toBe('1.0.0');
    const list = await request(h.app).get(`${base}/versions?unpublished=true`).set('Authorization', owner.auth);
    expect(list.body.items.map((v: { version: string; unpublished: boolean }) => [v.version, v.unpublished])).toEqual([
      ['1.1.0', true],
      ['1.0.0', false],
    ]);
    const again = await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.1.0' }), `${base}/versions`);
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ version: '1.1.0', unpublished: true });
  });

  it('serves a JSON manifest byte for byte with a strong ETag, and 304 on If-None-Match', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    // Key order, spacing and a unicode escape that a re-serialisation would change.
    const text = `{ "kind": "Agent",\n  "apiVersion": "std/v0.4.7",\n  "metadata": {"version": "1.0.0", "name": "agent", "namespace": "${ns}", "description": "caf\\u00e9"}\n}\n`;
    const published = await request(h.app).post('/api/v1/agents').set('Authorization', owner.auth).set('Content-Type', 'application/json').send(text);
    expect(published.status).toBe(201);
    expect(published.body.version).toMatchObject({ digest: sha256(text), size: Buffer.byteLength(text) });
    const path = `/api/v1/agents/${ns}/agent/versions/1.0.0/manifest`;
    const res = await request(h.app)
      .get(path)
      .set('Authorization', owner.auth)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString('utf8')).toBe(text);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.etag).toBe(`"${sha256(text)}"`);
    expect(res.headers['x-manifest-converted']).toBe('false');
    expect(res.headers['cache-control']).toContain('immutable');
    const notModified = await request(h.app).get(path).set('Authorization', owner.auth).set('If-None-Match', res.headers.etag);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(res.headers.etag);
    const otherTag = await request(h.app).get(path).set('Authorization', owner.auth).set('If-None-Match', '"something-else"');
    expect(otherTag.status).toBe(200);
    const latest = await request(h.app).get(`/api/v1/agents/${ns}/agent/versions/latest/manifest`).set('Authorization', owner.auth);
    expect(latest.status).toBe(200);
    expect(latest.headers['cache-control']).toContain('no-cache');
  });

  it('serves a YAML manifest as published, and converts between formats by Accept', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    const text = yamlManifest(ns, 'agent', '1.0.0');
    expect((await h.publish(owner.auth, text)).status).toBe(201);
    const path = `/api/v1/agents/${ns}/agent/versions/1.0.0/manifest`;
    const asPublished = await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', '*/*');
    expect(asPublished.status).toBe(200);
    expect(asPublished.headers['content-type']).toMatch(/^application\/yaml/);
    expect(asPublished.text).toBe(text);
    expect(asPublished.headers.etag).toBe(`"${sha256(text)}"`);
    const asYaml = await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', 'text/yaml');
    expect(asYaml.text).toBe(text);
    const asJson = await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', 'application/json');
    expect(asJson.status).toBe(200);
    expect(asJson.headers['x-manifest-converted']).toBe('true');
    expect(asJson.body).toEqual(YAML.parse(text));
    expect(asJson.headers.etag).not.toBe(asPublished.headers.etag);
    expect(
      (await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', 'application/json').set('If-None-Match', asJson.headers.etag)).status,
    ).toBe(304);
    const prefersJson = await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', 'application/yaml;q=0.5, application/json');
    expect(prefersJson.headers['x-manifest-format']).toBe('json');
    const html = await request(h.app).get(path).set('Authorization', owner.auth).set('Accept', 'text/html');
    expect(html.status).toBe(406);
    expect(html.body.error.code).toBe('not_acceptable');
  });

  it('converts a JSON manifest to YAML on request', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    const doc = manifest({ namespace: ns, name: 'agent', version: '1.0.0', description: 'json first' });
    expect((await h.publish(owner.auth, doc)).status).toBe(201);
    const res = await request(h.app)
      .get(`/api/v1/agents/${ns}/agent/versions/1.0.0/manifest`)
      .set('Authorization', owner.auth)
      .set('Accept', 'application/yaml');
    expect(res.status).toBe(200);
    expect(res.headers['x-manifest-converted']).toBe('true');
    expect(YAML.parse(res.text)).toEqual(doc);
  });
});
