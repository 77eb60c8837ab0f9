import { TestIssuer, uniqueName } from '@platform/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { auth, runEnds, startWorkers, Target, type Service } from './harness';

describe('workflow definitions', () => {
  let issuer: TestIssuer;
  let svc: Service;
  const target = new Target();
  const dir = mkdtempSync(path.join(tmpdir(), 'workers-defs-'));
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    await target.start();
    svc = await startWorkers(issuer, { WORKERS_DEFINITIONS_DIR: dir, WORKERS_MAX_STEPS: '20', WORKERS_MAX_DEFINITION_BYTES: '4096' });
  });
  afterAll(async () => {
    await svc?.stop();
    await target?.stop();
    await issuer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: unknown) =>
    request(svc.app)
      .post('/api/v1/workflows')
      .set('Authorization', auth(issuer))
      .send(body as object);
  const step = (id: string, depends_on: string[] = [], extra: Record<string, unknown> = {}) => ({
    id,
    type: 'http',
    url: `${target.url}/ok`,
    depends_on,
    ...extra,
  });

  // Cases built before the target server starts: a fixed URL.
  const fixed = (id: string, depends_on: string[] = [], extra: Record<string, unknown> = {}) => ({
    id,
    type: 'http',
    url: 'http://127.0.0.1:9/ok',
    depends_on,
    ...extra,
  });

  it('refuses a cycle with 400 naming it, and stores nothing', async () => {
    const name = uniqueName('cyclic');
    const res = await post({ name, steps: [step('a', ['c']), step('b', ['a']), step('c', ['b']), step('d')] });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
    expect(res.body.error.message).toMatch(/cycle: (a → b → c → a|b → c → a → b|c → a → b → c)/);
    const versions = await request(svc.app).get(`/api/v1/workflows/versions?name=${name}`).set('Authorization', auth(issuer));
    expect(versions.body.total).toBe(0);
  });

  it.each([
    ['duplicate ids', [fixed('a'), fixed('a')], /duplicate step id "a"/],
    ['unknown dependency', [fixed('a', ['ghost'])], /unknown step "ghost"/],
    ['self dependency', [fixed('a', ['a'])], /depends on itself/],
    ['template reading a step it does not depend on', [fixed('a'), fixed('b', [], { url: `http://127.0.0.1/{{a.body.x}}` })], /does not depend on/],
    ['unknown datasource', [{ id: 'q', type: 'database', datasource: 'nowhere', statement: 'SELECT 1' }], /unknown datasource "nowhere"/],
    ['too many steps', Array.from({ length: 21 }, (_, i) => fixed(`s${i}`)), /at most 20 steps/],
    ['a step type that does not exist', [{ id: 'a', type: 'ftp', url: 'http://x' }], /invalid/i],
    ['an http step without url', [{ id: 'a', type: 'http' }], /invalid/i],
    ['an agent step without agent or url', [{ id: 'a', type: 'agent' }], /invalid/i],
    [
      'an agent step without url while the mesh is not configured',
      [{ id: 'a', type: 'agent', agent: 'summarizer' }],
      /needs a url: the mesh is not configured/,
    ],
    ['the reserved id input', [fixed('input')], /invalid/i],
  ])('refuses %s with 400', async (_name, steps, message) => {
    const res = await post({ name: uniqueName('bad'), steps });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses a definition over the size bound with 413', async () => {
    const res = await post({ name: uniqueName('big'), steps: [step('a', [], { headers: { 'x-pad': 'x'.repeat(5000) } })] });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('versions by name: the same steps are the same version, changed steps a new one; a pin chooses the version runs use', async () => {
    const name = uniqueName('versioned');
    const v1 = await post({ name, steps: [step('a')] });
    expect(v1.status).toBe(202);
    expect(v1.body).toMatchObject({ name, version: 1, state: 'pending', pinned: false, steps: 1 });
    expect((await post({ name, steps: [step('a')] })).body.version).toBe(1);
    const v2 = await post({ name, steps: [step('a'), step('b', ['a'])] });
    expect(v2.body.version).toBe(2);
    const list = await request(svc.app).get(`/api/v1/workflows/versions?name=${name}`).set('Authorization', auth(issuer));
    expect(list.status).toBe(200);
    expect(list.body.items.map((item: { version: number; steps: number }) => [item.version, item.steps])).toEqual([
      [2, 2],
      [1, 1],
    ]);

    const pin = await request(svc.app).post(`/api/v1/workflows/${name}/pin?version=1`).set('Authorization', auth(issuer));
    expect(pin.status).toBe(200);
    expect(pin.body).toMatchObject({ name, version: 1 });
    const pinnedRun = await post({ name, steps: [step('a'), step('b', ['a']), step('c', ['b'])] });
    expect(pinnedRun.body).toMatchObject({ version: 1, pinned: true, steps: 1 });
    const dag = await runEnds(svc, issuer, pinnedRun.body.workflow_id);
    expect(dag.nodes.map((node) => node.id)).toEqual(['a']);
    // The posted steps were still registered as version 3.
    const after = await request(svc.app).get(`/api/v1/workflows/versions?name=${name}`).set('Authorization', auth(issuer));
    expect(after.body.items.map((item: { version: number; pinned: boolean }) => [item.version, item.pinned])).toEqual([
      [3, false],
      [2, false],
      [1, true],
    ]);
    // Pinning through a run id works too; a version that does not exist is 404.
    expect((await request(svc.app).post(`/api/v1/workflows/${pinnedRun.body.workflow_id}/pin?version=3`).set('Authorization', auth(issuer))).body.version).toBe(
      3,
    );
    expect((await request(svc.app).post(`/api/v1/workflows/${name}/pin?version=9`).set('Authorization', auth(issuer))).status).toBe(404);
    expect((await request(svc.app).post(`/api/v1/workflows/${name}/pin?version=x`).set('Authorization', auth(issuer))).status).toBe(400);
    expect(
      (
        await request(svc.app)
          .post(`/api/v1/workflows/${uniqueName('none')}/pin?version=1`)
          .set('Authorization', auth(issuer))
      ).status,
    ).toBe(404);
    // Without steps, the pinned version runs.
    const byName = await post({ name });
    expect(byName.body).toMatchObject({ version: 3, steps: 3 });
    expect((await post({ name: uniqueName('never') })).status).toBe(404);
  });

  it('reloads definitions from the directory, all or nothing with each bad file named', async () => {
    const good = uniqueName('filed');
    const other = uniqueName('filed');
    writeFileSync(
      path.join(dir, 'one.yaml'),
      `name: ${good}\nsteps:\n  - id: a\n    type: http\n    url: ${target.url}/ok\n  - id: b\n    type: http\n    url: ${target.url}/ok\n    depends_on: [a]\n`,
    );
    writeFileSync(path.join(dir, 'two.json'), JSON.stringify({ name: other, steps: [step('x')] }));
    const loaded = await request(svc.app).post('/api/v1/workflows/reload').set('Authorization', auth(issuer));
    expect(loaded.status).toBe(200);
    expect(loaded.body.loaded).toEqual([
      { file: 'one.yaml', name: good, version: 1, created: true },
      { file: 'two.json', name: other, version: 1, created: true },
    ]);
    // A changed good file beside a bad one and an unparsable one: nothing changes.
    writeFileSync(path.join(dir, 'one.yaml'), `name: ${good}\nsteps:\n  - id: a\n    type: http\n    url: ${target.url}/changed\n`);
    writeFileSync(
      path.join(dir, 'three.yaml'),
      `name: ${uniqueName('bad')}\nsteps:\n  - id: a\n    type: http\n    url: ${target.url}/ok\n    depends_on: [b]\n  - id: b\n    type: http\n    url: ${target.url}/ok\n    depends_on: [a]\n`,
    );
    writeFileSync(path.join(dir, 'four.json'), '{ not json');
    const refused = await request(svc.app).post('/api/v1/workflows/reload').set('Authorization', auth(issuer));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.files).toEqual([
      { file: 'four.json', errors: [expect.stringMatching(/cannot be parsed/)] },
      { file: 'three.yaml', errors: [expect.stringMatching(/cycle: /)] },
    ]);
    const versions = await request(svc.app).get(`/api/v1/workflows/versions?name=${good}`).set('Authorization', auth(issuer));
    expect(versions.body.items.map((item: { version: number; source: string }) => [item.version, item.source])).toEqual([[1, 'file:one.yaml']]);
    // Runs of a reloaded definition by name alone.
    const run = await post({ name: other });
    expect(run.status).toBe(202);
    expect((await runEnds(svc, issuer, run.body.workflow_id)).state).toBe('completed');
  });

  it('stops accepting runs while paused (503) and accepts them again after resume', async () => {
    const name = uniqueName('paused');
    const paused = await request(svc.app).post('/api/v1/pause').set('Authorization', auth(issuer));
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    try {
      const refused = await post({ name, steps: [step('a')] });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('service_unavailable');
      expect((await request(svc.app).get('/api/v1/health')).body.paused).toBe(true);
    } finally {
      const resumed = await request(svc.app).post('/api/v1/resume').set('Authorization', auth(issuer));
      expect(resumed.body.paused).toBe(false);
    }
    const accepted = await post({ name, steps: [step('a')] });
    expect(accepted.status).toBe(202);
  });
});
