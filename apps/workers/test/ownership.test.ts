import { eventually, TestIssuer, uniqueName } from '@platform/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Db } from '../src/database';
import { auth, engineOf, runEnds, startWorkers, Target, testQueue, type Service } from './harness';

/**
 * What the probe of issue 27 did as bob to alice's workflows (read her run and its trace, retried
 * it, registered a version under her definition's name), and the rest of the ownership rule.
 */
describe('who owns definitions and runs', () => {
  const USER = ['workflows:read', 'workflows:write', 'workers:read'];
  let issuer: TestIssuer;
  let svc: Service;
  let target: Target;
  const team = uniqueName('team');
  const alice = uniqueName('alice');
  const as = (sub: string, teams?: Array<{ id: string; role: 'viewer' | 'editor' | 'admin' }>, permissions = USER) =>
    issuer.bearer(permissions, { sub, ...(teams && { teams }) });
  const aliceAuth = () => as(alice, [{ id: team, role: 'editor' }]);
  const bobAuth = () => as(uniqueName('bob'));
  const viewerAuth = () => as(uniqueName('viewer'), [{ id: team, role: 'viewer' }]);
  const editorAuth = () => as(uniqueName('editor'), [{ id: team, role: 'editor' }]);
  const steps = (path = '/ok') => [{ id: 'only', type: 'http', url: `${target.url}${path}` }];

  const start = (authorization: string, body: Record<string, unknown>) =>
    request(svc.app).post('/api/v1/workflows').set('Authorization', authorization).send(body);
  const versionsOf = async (name: string) =>
    (await request(svc.app).get(`/api/v1/workflows/versions?name=${name}`).set('Authorization', auth(issuer))).body.items as Array<{
      version: number;
      owner: string | null;
      team: string | null;
    }>;

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    target = await new Target().start();
    svc = await startWorkers(issuer);
  });
  afterAll(async () => {
    await svc?.stop();
    await target?.stop();
    await issuer?.stop();
  });

  it("answers bob 404 for alice's failed run, its graph and trace, its retry and cancel, as for a run that does not exist", async () => {
    const started = await start(as(alice), { name: uniqueName('alice-wf'), steps: steps('/status/500') });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ owner: alice, team: null });
    const runId = started.body.workflow_id as string;
    expect((await runEnds(svc, issuer, runId)).state).toBe('failed');

    const bob = bobAuth();
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['get', 'dag'],
      ['get', 'trace'],
      ['post', 'retry'],
      ['post', 'cancel'],
    ] as const) {
      const theirs = await request(svc.app)[method](`/api/v1/workflows/${runId}/${path}`).set('Authorization', bob);
      const none = await request(svc.app)[method](`/api/v1/workflows/${missing}/${path}`).set('Authorization', bob);
      expect([path, theirs.status, theirs.body.error]).toEqual([path, 404, { ...none.body.error, message: none.body.error.message.replace(missing, runId) }]);
    }
    // Bob's retry changed nothing; alice's own works.
    expect((await request(svc.app).get(`/api/v1/workflows/${runId}/dag`).set('Authorization', as(alice))).body.state).toBe('failed');
    const retried = await request(svc.app).post(`/api/v1/workflows/${runId}/retry`).set('Authorization', as(alice));
    expect(retried.status).toBe(202);
    const trace = await request(svc.app).get(`/api/v1/workflows/${runId}/trace`).set('Authorization', as(alice));
    expect(trace.status).toBe(200);
  });

  it("refuses a version under alice's name: 404 to a stranger, 403 to a viewer of her team; an editor adds one that stays hers", async () => {
    const name = uniqueName('alice-wf');
    expect((await start(aliceAuth(), { name, team, steps: steps() })).status).toBe(202);

    const stranger = await start(bobAuth(), { name, steps: steps('/echo/bob') });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    expect(JSON.stringify(stranger.body)).not.toContain(alice);
    const viewer = await start(viewerAuth(), { name, steps: steps('/echo/viewer') });
    expect(viewer.status).toBe(403);
    // Neither of them forked the name: one version, alice's.
    expect(await versionsOf(name)).toEqual([expect.objectContaining({ version: 1, owner: alice, team })]);
    // Nor may they run it without steps: the stranger as if it did not exist.
    const runs = await start(bobAuth(), { name });
    expect(runs.status).toBe(404);
    expect(runs.body.error.message).toBe((await start(bobAuth(), { name: uniqueName('nothing') })).body.error.message.replace(/nothing-\S+:/, `${name}:`));
    expect((await start(viewerAuth(), { name })).status).toBe(403);

    const editor = await start(editorAuth(), { name, steps: steps('/echo/editor') });
    expect(editor.status).toBe(202);
    // The editor's run is the editor's, shared with the definition's team; the version stays alice's.
    expect(editor.body).toMatchObject({ version: 2, team });
    expect(editor.body.owner).not.toBe(alice);
    expect((await versionsOf(name)).map((version) => [version.version, version.owner, version.team])).toEqual([
      [2, alice, team],
      [1, alice, team],
    ]);
    // The viewer reads the editor's run (same team); a stranger does not.
    expect((await request(svc.app).get(`/api/v1/workflows/${editor.body.workflow_id}/dag`).set('Authorization', viewerAuth())).status).toBe(200);
    expect((await request(svc.app).get(`/api/v1/workflows/${editor.body.workflow_id}/dag`).set('Authorization', bobAuth())).status).toBe(404);
  });

  it('never forks a new name between two callers creating it at once', async () => {
    const name = uniqueName('race');
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => start(bobAuth(), { name, steps: steps(`/echo/${i}`) })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 404, 404, 404]);
    const owners = new Set((await versionsOf(name)).map((version) => version.owner));
    expect(owners.size).toBe(1);
  });

  it('lets only an editor of a team share with it, and only with a team of theirs', async () => {
    const viewer = await start(viewerAuth(), { name: uniqueName('share'), team, steps: steps() });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.details).toMatchObject({ reason: 'not_team_editor', team });
  });

  it('lists only what the caller may read: versions, running runs and slow tasks', async () => {
    const name = uniqueName('listed');
    const hold = uniqueName('/hold');
    target.handlers.set(hold, () => undefined);
    const run = await start(aliceAuth(), { name, team, steps: steps(hold) });
    expect(run.status).toBe(202);
    const runId = run.body.workflow_id as string;
    await eventually(() => target.inFlight.get(hold) === 1);
    const listed = async (authorization: string) => {
      const get = (path: string) => request(svc.app).get(path).set('Authorization', authorization);
      return {
        versions: (await get(`/api/v1/workflows/versions?name=${name}`)).body.total,
        running: (await get('/api/v1/workflows/running?limit=500')).body.items.some((item: { workflow_id: string }) => item.workflow_id === runId),
        slow: (await get(`/api/v1/tasks/slow?threshold=0&workflow_id=${runId}`)).body.total,
      };
    };
    expect(await listed(as(alice))).toEqual({ versions: 1, running: true, slow: 1 });
    expect(await listed(viewerAuth())).toEqual({ versions: 1, running: true, slow: 1 });
    expect(await listed(bobAuth())).toEqual({ versions: 0, running: false, slow: 0 });
    await request(svc.app).post(`/api/v1/workflows/${runId}/cancel`).set('Authorization', as(alice)).expect(200);
  });

  it("recovers only the orphans of runs the caller may change, and lists only the caller's", async () => {
    const admin = auth(issuer);
    // A queue of its own: the reaper of this file's other service must not recover the orphan first.
    const api = await startWorkers(issuer, { SERVICE_ROLE: 'api', WORKERS_QUEUE: `${testQueue}-api` });
    const { engine, close } = engineOf(api);
    try {
      const run = await request(api.app)
        .post('/api/v1/workflows')
        .set('Authorization', aliceAuth())
        .send({ name: uniqueName('orphan'), team, steps: steps() });
      const runId = run.body.workflow_id as string;
      const step = await (api.infra.db as Db).step.findFirstOrThrow({ where: { runId } });
      // A worker claimed it and died at once: its lease is already over (no reaper in the api role).
      await engine.claim(step.id, 1, 'dead-worker', 1, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const orphans = async (authorization: string) =>
        (await request(api.app).get('/api/v1/workflows/orphaned?limit=500').set('Authorization', authorization)).body.items.map(
          (item: { workflow_id: string }) => item.workflow_id,
        );
      expect(await orphans(bobAuth())).not.toContain(runId);
      expect(await orphans(viewerAuth())).toContain(runId);
      const recover = (authorization: string) => request(api.app).post('/api/v1/workflows/recover-orphaned').set('Authorization', authorization);
      const userAdmin = (sub: string, teams?: Array<{ id: string; role: 'viewer' | 'editor' }>) => as(sub, teams, [...USER, 'workflows:admin']);
      expect((await recover(userAdmin(uniqueName('bob')))).body).toEqual({ recovered: 0, steps: [] });
      expect((await recover(userAdmin(uniqueName('viewer'), [{ id: team, role: 'viewer' }]))).body).toEqual({ recovered: 0, steps: [] });
      expect((await recover(userAdmin(alice))).body).toEqual({ recovered: 1, steps: [{ workflow_id: runId, step: 'only', attempt: 2 }] });
      expect(await orphans(admin)).not.toContain(runId);
    } finally {
      await close();
      await api.stop();
    }
  });

  it("reloads files as the operator's names, shared with a file's team, and leaves a name of someone else alone", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'workers-owned-'));
    const api = await startWorkers(issuer, { SERVICE_ROLE: 'api', WORKERS_QUEUE: `${testQueue}-reload`, WORKERS_DEFINITIONS_DIR: dir });
    const operatorSub = uniqueName('operator');
    const operator = as(operatorSub, [{ id: team, role: 'editor' }], [...USER, 'workflows:admin']);
    const reload = () => request(api.app).post('/api/v1/workflows/reload').set('Authorization', operator);
    const file = (name: string, extra = '') => `name: ${name}\n${extra}steps:\n  - id: a\n    type: http\n    url: ${target.url}/ok\n`;
    try {
      const shared = uniqueName('filed');
      writeFileSync(path.join(dir, 'shared.yaml'), file(shared, `team: ${team}\n`));
      expect((await reload()).status).toBe(200);
      expect(await versionsOf(shared)).toEqual([expect.objectContaining({ version: 1, owner: operatorSub, team })]);
      expect((await request(api.app).post('/api/v1/workflows').set('Authorization', editorAuth()).send({ name: shared })).status).toBe(202);

      // A file naming alice's definition: nothing is reloaded, her name keeps its one version.
      const hers = uniqueName('alice-wf');
      expect((await start(as(alice), { name: hers, steps: steps() })).status).toBe(202);
      writeFileSync(path.join(dir, 'hers.yaml'), file(hers));
      expect((await reload()).status).toBe(404);
      expect(await versionsOf(hers)).toEqual([expect.objectContaining({ version: 1, owner: alice })]);
      rmSync(path.join(dir, 'hers.yaml'));
      // A team the operator is no editor of.
      writeFileSync(path.join(dir, 'elsewhere.yaml'), file(uniqueName('filed'), `team: ${uniqueName('team')}\n`));
      expect((await reload()).status).toBe(403);
    } finally {
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives a run started for a user by a service (a delegated token) to the user', async () => {
    const delegated = issuer.bearer(USER, { sub: alice, act: { sub: 'master', client_id: 'master' } });
    const started = await start(delegated, { name: uniqueName('delegated'), steps: steps() });
    expect(started.status).toBe(202);
    expect(started.body.owner).toBe(alice);
    expect((await request(svc.app).get(`/api/v1/workflows/${started.body.workflow_id}/trace`).set('Authorization', as(alice))).status).toBe(200);
  });

  it('keeps runs and definitions from before owners were recorded for workers:admin only', async () => {
    const db = svc.infra.db as Db;
    const started = await start(as(alice), { name: uniqueName('legacy'), steps: steps() });
    await db.run.update({ where: { id: started.body.workflow_id }, data: { owner: null } });
    await db.definition.updateMany({ where: { name: started.body.name }, data: { owner: null } });
    expect((await request(svc.app).get(`/api/v1/workflows/${started.body.workflow_id}/dag`).set('Authorization', as(alice))).status).toBe(404);
    expect((await start(as(alice), { name: started.body.name })).status).toBe(404);
    expect((await request(svc.app).get(`/api/v1/workflows/${started.body.workflow_id}/dag`).set('Authorization', auth(issuer))).status).toBe(200);
  });
});
