import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { goodSecurity, manifest, yamlManifest, startRegistry, type Harness } from './fixtures';

describe('agents', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it("publishes a JSON manifest: 201, the namespace is the caller's, the agent shows the manifest's fields", async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    const res = await h.publish(
      owner.auth,
      manifest({
        namespace: ns,
        name: 'code-reviewer',
        version: '1.0.0',
        description: 'Reviews pull requests',
        agentKind: 'reviewer',
        tags: ['git'],
        labels: { team: 'devex' },
        security: goodSecurity('tier_2_write_limited', ['filesystem-read']),
        governance: { compliance_profiles: ['SOC2'] },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(true);
    expect(res.body.agent).toMatchObject({
      namespace: ns,
      name: 'code-reviewer',
      owner: owner.sub,
      latestVersion: '1.0.0',
      description: 'Reviews pull requests',
      kind: 'Agent',
      agentKind: 'reviewer',
      tier: 'tier_2_write_limited',
      capabilities: ['filesystem-read'],
      tags: ['git'],
      labels: { team: 'devex' },
      compliance: ['soc2'],
      certified: false,
      status: 'active',
    });
    expect(res.body.version).toMatchObject({ version: '1.0.0', format: 'json', latest: true, prerelease: false, unpublished: false, schemaVersion: '0.4.7' });
    const got = await request(h.app)
      .get(`/api/v1/agents/${ns}/code-reviewer`)
      .set('Authorization', h.user(['registry:read']).auth);
    expect(got.status).toBe(200);
    expect(got.body.owner).toBe(owner.sub);
  });

  it('publishes YAML sent as application/yaml', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    const res = await h.publish(owner.auth, yamlManifest(ns, 'yaml-agent', '0.1.0'));
    expect(res.status).toBe(201);
    expect(res.body.version.format).toBe('yaml');
    expect(res.body.agent.description).toBe('Reviews pull requests and suggests fixes.');
  });

  it("answers 400 with the validator's errors (paths and codes) and stores nothing", async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    const bad = manifest({ namespace: ns, name: 'Bad_Name', version: '1.0.0', security: { tier: 'tier_9' } });
    const res = await h.publish(owner.auth, bad);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    const paths = res.body.error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining([expect.stringContaining('metadata.name'), expect.stringContaining('security.tier')]));
    for (const issue of res.body.error.details.issues) expect(issue.code).toEqual(expect.any(String));
    const list = await request(h.app).get(`/api/v1/agents?namespace=${ns}`).set('Authorization', owner.auth);
    expect(list.body.total).toBe(0);
  });

  it('answers 400 for missing namespace or version, unparseable text, an empty body and a non-object', async () => {
    const { auth } = h.user();
    const noNamespace = await h.publish(auth, manifest({ name: 'agent', version: '1.0.0' }));
    expect(noNamespace.status).toBe(400);
    expect(noNamespace.body.error.details.issues[0].path).toBe('$.metadata.namespace');
    const noVersion = manifest({ namespace: uniqueName('ns'), name: 'agent', version: '1.0.0' });
    delete (noVersion.metadata as Record<string, unknown>).version;
    const versionless = await h.publish(auth, noVersion);
    expect(versionless.status).toBe(400);
    expect(versionless.body.error.details.issues[0].path).toBe('$.metadata.version');
    const broken = await request(h.app).post('/api/v1/agents').set('Authorization', auth).set('Content-Type', 'application/json').send('{"apiVersion":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.details.issues[0].code).toBe('manifest.parse.json');
    const badYaml = await h.publish(auth, 'a: [unclosed\n');
    expect(badYaml.status).toBe(400);
    const empty = await request(h.app).post('/api/v1/agents').set('Authorization', auth).set('Content-Type', 'application/json').send('');
    expect(empty.status).toBe(400);
    const array = await request(h.app).post('/api/v1/agents').set('Authorization', auth).set('Content-Type', 'application/json').send('[1,2]');
    expect(array.status).toBe(400);
    expect(array.body.error.details.issues[0].code).toBe('manifest.type');
  });

  it('answers 415 for another media type and 413 for a manifest over the limit', async () => {
    const { auth } = h.user();
    const xml = await request(h.app).post('/api/v1/agents').set('Authorization', auth).set('Content-Type', 'application/xml').send('<agent/>');
    expect(xml.status).toBe(415);
    expect(xml.body.error).toMatchObject({ type: 'validation_error', code: 'unsupported_media_type' });
    const large = manifest({ namespace: uniqueName('ns'), name: 'big', version: '1.0.0', extraMetadata: { annotations: { pad: 'x'.repeat(70 * 1024) } } });
    const tooLarge = await h.publish(auth, large);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
  });

  it('answers 401 without a token and 403 without registry:write', async () => {
    const doc = manifest({ namespace: uniqueName('ns'), name: 'agent', version: '1.0.0' });
    const anonymous = await request(h.app).post('/api/v1/agents').send(doc);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.type).toBe('authentication_error');
    const reader = await h.publish(h.user(['registry:read']).auth, doc);
    expect(reader.status).toBe(403);
    expect(reader.body.error.details.required).toBe('registry:write');
    expect((await request(h.app).get('/api/v1/agents')).status).toBe(401);
  });

  it('refuses a version that exists (409) and leaves the stored manifest untouched', async () => {
    const { auth } = h.user();
    const ns = uniqueName('ns');
    expect((await h.publish(auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0', description: 'first' }))).status).toBe(201);
    const again = await h.publish(auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0', description: 'second' }));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict', details: { version: '1.0.0', unpublished: false } });
    const sameWithBuild = await h.publish(auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0+build.2' }));
    expect(sameWithBuild.status).toBe(409);
    const agent = await request(h.app).get(`/api/v1/agents/${ns}/agent`).set('Authorization', auth);
    expect(agent.body.description).toBe('first');
  });

  it('keeps a namespace for its first publisher: others get 404, registry:admin may publish', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    expect((await h.publish(owner.auth, manifest({ namespace: ns, name: 'one', version: '1.0.0' }))).status).toBe(201);
    const intruder = await h.publish(h.user().auth, manifest({ namespace: ns, name: 'two', version: '1.0.0' }));
    // The platform's ownership rule: what the caller may not change is not theirs to see either (tenancy.test.ts).
    expect(intruder.status).toBe(404);
    expect(intruder.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found', message: `No namespace ${ns} that you may publish in` });
    const admin = await h.publish(h.user(['registry:write', 'registry:admin']).auth, manifest({ namespace: ns, name: 'two', version: '1.0.0' }));
    expect(admin.status).toBe(201);
    expect(admin.body.agent.owner).toBe(owner.sub);
  });

  it('answers 404 for an unknown agent and 400 for a malformed name', async () => {
    const { auth } = h.user();
    expect(
      (
        await request(h.app)
          .get(`/api/v1/agents/${uniqueName('ns')}/nobody`)
          .set('Authorization', auth)
      ).status,
    ).toBe(404);
    const bad = await request(h.app).get('/api/v1/agents/Bad_NS/x').set('Authorization', auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('params.namespace');
  });

  it('changes agent-level metadata with PUT (owner only) and never the manifest', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0', description: 'from the manifest' }));
    const path = `/api/v1/agents/${ns}/agent`;
    const res = await request(h.app)
      .put(path)
      .set('Authorization', owner.auth)
      .send({ displayName: 'Agent', homepage: 'https://example.org', keywords: ['helper'], compliance: ['hipaa'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Agent',
      homepage: 'https://example.org',
      keywords: ['helper'],
      compliance: ['hipaa'],
      description: 'from the manifest',
    });
    const cleared = await request(h.app).put(path).set('Authorization', owner.auth).send({ displayName: null });
    expect(cleared.body.displayName).toBeNull();
    const unknownField = await request(h.app).put(path).set('Authorization', owner.auth).send({ description: 'rewrite the manifest' });
    expect(unknownField.status).toBe(400);
    expect((await request(h.app).put(path).set('Authorization', owner.auth).send({})).status).toBe(400);
    expect((await request(h.app).put(path).set('Authorization', owner.auth).send({ homepage: 'javascript:alert(1)' })).status).toBe(400);
    expect((await request(h.app).put(path).set('Authorization', h.user().auth).send({ displayName: 'mine' })).status).toBe(404);
    expect((await request(h.app).put(path).send({ displayName: 'mine' })).status).toBe(401);
    expect((await request(h.app).put(`/api/v1/agents/${ns}/ghost`).set('Authorization', owner.auth).send({ displayName: 'x' })).status).toBe(404);
  });

  it('deletes an agent (owner or admin): versions unpublished, numbers never reused, a new version brings it back', async () => {
    const owner = h.user();
    const ns = uniqueName('ns');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' }));
    const path = `/api/v1/agents/${ns}/agent`;
    expect((await request(h.app).delete(path).set('Authorization', h.user().auth)).status).toBe(404);
    expect((await request(h.app).delete(path)).status).toBe(401);
    expect((await request(h.app).delete(path).set('Authorization', owner.auth)).status).toBe(204);
    expect((await request(h.app).get(path).set('Authorization', owner.auth)).status).toBe(404);
    expect((await request(h.app).delete(path).set('Authorization', owner.auth)).status).toBe(404);
    const reused = await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' }));
    expect(reused.status).toBe(409);
    expect(reused.body.error.details.unpublished).toBe(true);
    const revived = await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.1' }));
    expect(revived.status).toBe(201);
    expect(revived.body.agent.latestVersion).toBe('1.0.1');
    const admin = await request(h.app)
      .delete(path)
      .set('Authorization', h.user(['registry:write', 'registry:admin']).auth);
    expect(admin.status).toBe(204);
  });

  it('lists agents with filters, paging and totals; bad filter values are 400', async () => {
    const { auth } = h.user();
    const ns = uniqueName('ns');
    for (const [name, kind] of [
      ['a-task', 'Task'],
      ['b-agent', 'Agent'],
      ['c-agent', 'Agent'],
    ] as const) {
      expect((await h.publish(auth, manifest({ namespace: ns, name, version: '1.0.0', kind }))).status).toBe(201);
    }
    const all = await request(h.app).get(`/api/v1/agents?namespace=${ns}&limit=2`).set('Authorization', auth);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(all.body.items.map((agent: { name: string }) => agent.name)).toEqual(['a-task', 'b-agent']);
    const second = await request(h.app).get(`/api/v1/agents?namespace=${ns}&limit=2&offset=2`).set('Authorization', auth);
    expect(second.body.items.map((agent: { name: string }) => agent.name)).toEqual(['c-agent']);
    const beyond = await request(h.app).get(`/api/v1/agents?namespace=${ns}&offset=10`).set('Authorization', auth);
    expect(beyond.body).toMatchObject({ total: 3, items: [] });
    const tasks = await request(h.app).get(`/api/v1/agents?namespace=${ns}&kind=Task`).set('Authorization', auth);
    expect(tasks.body.total).toBe(1);
    for (const query of ['limit=0', 'limit=501', 'certified=yes', 'kind=Robot', 'tier=tier_9', 'unknown=1']) {
      const res = await request(h.app).get(`/api/v1/agents?${query}`).set('Authorization', auth);
      expect(res.status).toBe(400);
    }
  });

  it('settles concurrent publishes: one version wins (others 409, never 500), distinct versions all land and latest is right', async () => {
    const owner = h.user();
    const ns = uniqueName('race');
    const same = await Promise.all(Array.from({ length: 5 }, () => h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' }))));
    expect(same.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const versions = ['1.0.1', '1.2.0', '1.1.0', '2.0.0-rc.1', '1.0.2', '1.10.0'];
    const distinct = await Promise.all(versions.map((version) => h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version }))));
    expect(distinct.map((res) => res.status)).toEqual(versions.map(() => 201));
    const agent = await request(h.app).get(`/api/v1/agents/${ns}/agent`).set('Authorization', owner.auth);
    expect(agent.body.latestVersion).toBe('1.10.0');
    const list = await request(h.app).get(`/api/v1/agents/${ns}/agent/versions`).set('Authorization', owner.auth);
    expect(list.body.total).toBe(7);
    const rivals = await Promise.all(
      [h.user(), h.user(), h.user()].map((user) => h.publish(user.auth, manifest({ namespace: `${ns}-claim`, name: 'agent', version: '1.0.0' }))),
    );
    expect(rivals.map((res) => res.status).sort()).toEqual([201, 404, 404]);
  });
});
