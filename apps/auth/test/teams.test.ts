import { decodeCompactJws } from '@platform/jwt';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { startAuth, type AuthHarness } from './fixtures';
import { TestIdentityProvider } from './idp/identity-provider';

const teamsOf = (token: string) => (decodeCompactJws(token).payload as { teams?: unknown }).teams;
const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe('teams', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  const as = (token: string) => ({
    get: (path: string) => auth.http().get(`/api/v1/auth${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object) => auth.http().post(`/api/v1/auth${path}`).set('Authorization', `Bearer ${token}`).send(body),
    put: (path: string, body: object) => auth.http().put(`/api/v1/auth${path}`).set('Authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => auth.http().delete(`/api/v1/auth${path}`).set('Authorization', `Bearer ${token}`),
  });
  const person = async () => {
    const user = await auth.createUser(['agents:read']);
    const tokens = await auth.login(user.username, user.password);
    return { ...user, token: tokens.access_token, refresh: tokens.refresh_token };
  };
  const refresh = async (refreshToken: string) => {
    const res = await auth.http().post('/api/v1/auth/refresh').send({ refresh_token: refreshToken, grant_type: 'refresh_token' });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string };
  };
  const newTeam = async (owner: { token: string }) => {
    const res = await as(owner.token).post('/teams', { name: unique('team') });
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string };
  };

  it('creates a team with its creator as admin; names are unique; services cannot create teams', async () => {
    const alice = await person();
    const name = unique('Platform team');
    const res = await as(alice.token).post('/teams', { name });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name, createdBy: alice.id, createdAt: expect.any(String), role: 'admin' });
    const again = await as(alice.token).post('/teams', { name });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const service = await auth.serviceToken('gateway', ['agents:read']);
    expect((await as(service.token).post('/teams', { name: unique('svc') })).status).toBe(403);
    expect((await as(alice.token).post('/teams', { name: '' })).status).toBe(400);
    expect(
      (
        await auth
          .http()
          .post('/api/v1/auth/teams')
          .send({ name: unique('anon') })
      ).status,
    ).toBe(401);
    const detail = await as(alice.token).get(`/teams/${res.body.id}`);
    expect(detail.body.members).toEqual([{ userId: alice.id, username: alice.username, role: 'admin', source: 'manual', addedAt: expect.any(String) }]);
  });

  it("lists the caller's teams only, and every team for auth:admin, paged", async () => {
    const [alice, bob] = [await person(), await person()];
    const a = await newTeam(alice);
    const b = await newTeam(bob);
    const mine = await as(alice.token).get('/teams');
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ teams: [expect.objectContaining({ id: a.id, role: 'admin' })], total: 1, limit: 50, offset: 0 });
    const all = await as(await auth.admin()).get('/teams?limit=500');
    expect(all.body.teams.map((team: { id: string }) => team.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(all.body.teams.find((team: { id: string }) => team.id === b.id).role).toBeNull();
    expect((await as(alice.token).get('/teams?limit=0')).status).toBe(400);
  });

  it('lets only team admins and auth:admin manage members; strangers get 404, viewers 403', async () => {
    const [alice, bob, carol, stranger] = [await person(), await person(), await person(), await person()];
    const team = await newTeam(alice);
    const added = await as(alice.token).put(`/teams/${team.id}/members/${bob.id}`, { role: 'viewer' });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ userId: bob.id, username: bob.username, role: 'viewer', source: 'manual' });

    // bob (viewer) sees the team but cannot change it
    expect((await as(bob.token).get(`/teams/${team.id}`)).body.members).toHaveLength(2);
    const viewerAdds = await as(bob.token).put(`/teams/${team.id}/members/${carol.id}`, { role: 'editor' });
    expect(viewerAdds.status).toBe(403);
    expect(viewerAdds.body.error.type).toBe('authorization_error');
    expect((await as(bob.token).delete(`/teams/${team.id}`)).status).toBe(403);
    expect((await as(bob.token).delete(`/teams/${team.id}/members/${alice.id}`)).status).toBe(403);

    // a stranger cannot tell the team exists
    const missing = await as(stranger.token).get(`/teams/${randomUUID()}`);
    const hidden = await as(stranger.token).get(`/teams/${team.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe(missing.body.error.code);
    expect((await as(stranger.token).put(`/teams/${team.id}/members/${stranger.id}`, { role: 'admin' })).status).toBe(404);
    expect((await as(stranger.token).delete(`/teams/${team.id}`)).status).toBe(404);

    // unknown users and bad input
    const nobody = await as(alice.token).put(`/teams/${team.id}/members/${randomUUID()}`, { role: 'viewer' });
    expect(nobody.status).toBe(404);
    expect((await as(alice.token).put(`/teams/${team.id}/members/not-a-uuid`, { role: 'viewer' })).status).toBe(400);
    expect((await as(alice.token).put(`/teams/${team.id}/members/${carol.id}`, { role: 'owner' })).status).toBe(400);

    // auth:admin manages any team
    expect((await as(await auth.admin()).put(`/teams/${team.id}/members/${carol.id}`, { role: 'editor' })).status).toBe(200);
    const removed = await as(alice.token).delete(`/teams/${team.id}/members/${carol.id}`);
    expect(removed.status).toBe(204);
    expect((await as(alice.token).delete(`/teams/${team.id}/members/${carol.id}`)).status).toBe(404);
  });

  it('keeps an admin in every team; a member may leave', async () => {
    const [alice, bob] = [await person(), await person()];
    const team = await newTeam(alice);
    await as(alice.token).put(`/teams/${team.id}/members/${bob.id}`, { role: 'editor' });
    expect((await as(alice.token).put(`/teams/${team.id}/members/${alice.id}`, { role: 'viewer' })).status).toBe(409);
    expect((await as(alice.token).delete(`/teams/${team.id}/members/${alice.id}`)).status).toBe(409);
    expect((await as(bob.token).delete(`/teams/${team.id}/members/${bob.id}`)).status).toBe(204);
    expect((await as(bob.token).get(`/teams/${team.id}`)).status).toBe(404);
  });

  it('deletes a team for its admin or auth:admin', async () => {
    const [alice, bob] = [await person(), await person()];
    const mine = await newTeam(alice);
    expect((await as(alice.token).delete(`/teams/${mine.id}`)).status).toBe(204);
    expect((await as(alice.token).get(`/teams/${mine.id}`)).status).toBe(404);
    const bobs = await newTeam(bob);
    expect((await as(await auth.admin()).delete(`/teams/${bobs.id}`)).status).toBe(204);
    expect(await auth.db.teamMember.count({ where: { teamId: bobs.id } })).toBe(0);
    const audit = await auth.db.auditEvent.findFirst({ where: { eventType: 'team_deleted', metadata: { path: ['teamId'], equals: bobs.id } } });
    expect(audit).not.toBeNull();
  });

  it('puts the teams in every token: login, refresh after a change, token exchange', async () => {
    const [alice, bob] = [await person(), await person()];
    expect(teamsOf(bob.token)).toBeUndefined();
    const team = await newTeam(alice);
    await as(alice.token).put(`/teams/${team.id}/members/${bob.id}`, { role: 'viewer' });
    const afterAdd = await refresh(bob.refresh);
    expect(teamsOf(afterAdd.access_token)).toEqual([{ id: team.id, role: 'viewer' }]);
    await as(alice.token).put(`/teams/${team.id}/members/${bob.id}`, { role: 'editor' });
    const afterChange = await refresh(afterAdd.refresh_token);
    expect(teamsOf(afterChange.access_token)).toEqual([{ id: team.id, role: 'editor' }]);
    expect(teamsOf((await auth.login(bob.username, bob.password)).access_token)).toEqual([{ id: team.id, role: 'editor' }]);

    const gateway = await auth.serviceToken('gateway', ['tokens:exchange']);
    const delegated = await auth.http().post('/api/v1/auth/token').set('Authorization', `Bearer ${gateway.token}`).send({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: afterChange.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    expect(teamsOf(delegated.body.access_token)).toEqual([{ id: team.id, role: 'editor' }]);

    await as(alice.token).delete(`/teams/${team.id}/members/${bob.id}`);
    expect(teamsOf((await refresh(afterChange.refresh_token)).access_token)).toBeUndefined();
  });
});

describe('teams from identity-provider groups', () => {
  const REDIRECT_URI = 'http://127.0.0.1:45872/callback';
  const provider = `idp-${randomUUID().slice(0, 8)}`;
  const developers = unique('developers');
  const everyone = unique('everyone');
  let auth: AuthHarness;
  let idp: TestIdentityProvider;

  beforeAll(async () => {
    idp = await new TestIdentityProvider(REDIRECT_URI).start();
    auth = await startAuth({
      AUTH_ROLE_MAPPINGS: JSON.stringify([
        { group: 'platform/developers', role: 'developer', permissions: ['agents:read'], team: { name: developers, role: 'editor' } },
        { group: 'platform/*', role: 'user', permissions: ['agents:read'], team: { name: developers, role: 'viewer' } },
        { group: 'platform', role: 'user', permissions: ['agents:read'], team: { name: everyone, role: 'viewer' } },
      ]),
    });
    const configured = await auth
      .http()
      .post('/api/v1/auth/oauth/configure')
      .set('Authorization', `Bearer ${await auth.admin()}`)
      .send({
        provider,
        config: {
          authorizationURL: `${idp.issuer}/auth`,
          tokenURL: `${idp.issuer}/token`,
          userInfoURL: `${idp.issuer}/me`,
          clientID: 'platform-test-client',
          clientSecret: 'platform-test-secret',
          callbackURL: REDIRECT_URI,
          scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
        },
      });
    expect(configured.status).toBe(200);
  });
  afterAll(async () => {
    idp?.stop();
    await auth?.close();
  });

  async function signIn(account: 'alice' | 'dave') {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await idp.signInAs(account);
    const res = await auth
      .http()
      .get(`/api/v1/auth/oauth/authorize?${new URLSearchParams({ provider, client_id: 'web', code_challenge: challenge, code_challenge_method: 'S256' })}`);
    expect(res.status).toBe(302);
    const back = await idp.authorize(res.headers.location!);
    const tokens = await auth
      .http()
      .post('/api/v1/auth/oauth/token')
      .send({ grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, client_id: 'web', code: back.get('code')!, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; user: { id: string } };
  }

  it('syncs idp memberships to the mapped teams at each sign-in, creating teams, leaving manual ones alone', async () => {
    const first = await signIn('dave');
    const team = await auth.db.team.findUniqueOrThrow({ where: { name: developers } });
    expect(team.createdBy).toBe(`idp:${provider}`);
    // Two mappings name the team: the higher role wins.
    expect(teamsOf(first.access_token)).toEqual([{ id: team.id, role: 'editor' }]);
    expect(await auth.db.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId: first.user.id } } })).toMatchObject({ source: 'idp' });

    // A manual membership, and an idp one for a group dave has since left.
    const admin = await auth.admin();
    const manual = await auth
      .http()
      .post('/api/v1/auth/teams')
      .set('Authorization', `Bearer ${admin}`)
      .send({ name: unique('manual') });
    await auth.http().put(`/api/v1/auth/teams/${manual.body.id}/members/${first.user.id}`).set('Authorization', `Bearer ${admin}`).send({ role: 'viewer' });
    const left = await auth.db.team.create({ data: { name: unique('left'), createdBy: `idp:${provider}` } });
    await auth.db.teamMember.create({ data: { teamId: left.id, userId: first.user.id, role: 'editor', source: 'idp' } });

    const second = await signIn('dave');
    expect(second.user.id).toBe(first.user.id);
    const claims = teamsOf(second.access_token) as Array<{ id: string; role: string }>;
    expect(claims).toEqual(
      expect.arrayContaining([
        { id: team.id, role: 'editor' },
        { id: manual.body.id, role: 'viewer' },
      ]),
    );
    expect(claims).toHaveLength(2);
  });

  it('maps several groups to several teams', async () => {
    const alice = await signIn('alice'); // groups platform/admins (platform/* → developers, viewer) and platform (everyone)
    const names = await auth.db.team.findMany({ where: { id: { in: (teamsOf(alice.access_token) as Array<{ id: string }>).map((t) => t.id) } } });
    expect(names.map((team) => team.name).sort()).toEqual([developers, everyone].sort());
    expect(teamsOf(alice.access_token)).toEqual(expect.arrayContaining([expect.objectContaining({ role: 'viewer' })]));
  });
});
