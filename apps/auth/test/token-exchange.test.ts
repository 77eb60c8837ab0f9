import { decodeCompactJws } from '@platform/jwt';
import { startAuth, type AuthHarness } from './fixtures';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';

const claimsOf = (token: string) => decodeCompactJws(token).payload as Record<string, unknown> & { exp: number; permissions: string[] };

describe('token exchange (RFC 8693)', () => {
  let auth: AuthHarness;
  /** The gateway's own token: its API key holds tokens:exchange. */
  let gateway: { id: string; token: string };
  let user: { id: string; username: string; password: string };
  let subject: string;
  beforeAll(async () => {
    auth = await startAuth();
    gateway = await auth.serviceToken('gateway', ['tokens:exchange', 'agents:read']);
    user = await auth.createUser(['agents:read', 'agents:write']);
    subject = (await auth.login(user.username, user.password)).access_token;
  });
  afterAll(() => auth.close());

  const exchange = (fields: Record<string, string>, actor: string | null = gateway.token, form = true) => {
    const req = auth.http().post('/api/v1/auth/token');
    if (actor) req.set('Authorization', `Bearer ${actor}`);
    return form ? req.type('form').send(fields) : req.send(fields);
  };
  const asUser = (extra: Record<string, string> = {}) => ({ grant_type: GRANT, subject_token: subject, subject_token_type: ACCESS, ...extra });
  const validate = async (token: string) => (await auth.http().post('/api/v1/auth/validate').send({ token })).body;

  it('issues the subject a token acted on by the caller, form-encoded, and audits it', async () => {
    const res = await exchange(asUser());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), issued_token_type: ACCESS, token_type: 'Bearer', expires_in: expect.any(Number) });
    const issued = claimsOf(res.body.access_token);
    const original = claimsOf(subject);
    expect(issued).toMatchObject({
      sub: user.id,
      user: { id: user.id },
      roles: ['user'],
      permissions: ['agents:read', 'agents:write'],
      act: { sub: 'service:gateway', client_id: 'gateway' },
      client_id: 'gateway',
    });
    expect(issued.jti).not.toBe(original.jti);
    expect(issued.exp).toBeLessThanOrEqual(original.exp);
    expect(await validate(res.body.access_token)).toMatchObject({ valid: true, payload: { sub: user.id } });
    const audit = await auth.db.auditEvent.findFirst({ where: { eventType: 'token_exchanged', userId: user.id } });
    expect(audit).toMatchObject({
      clientId: 'gateway',
      metadata: expect.objectContaining({ actor: 'service:gateway', jti: issued.jti, subjectJti: original.jti }),
    });
  });

  it('takes JSON too, and narrows the permissions to the scope asked for', async () => {
    const res = await exchange(asUser({ scope: 'agents:read' }), gateway.token, false);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('agents:read');
    expect(claimsOf(res.body.access_token).permissions).toEqual(['agents:read']);
  });

  it('refuses a scope the subject does not hold: invalid_scope', async () => {
    const res = await exchange(asUser({ scope: 'agents:read agents:admin' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_scope', details: { refused: ['agents:admin'] } });
    expect(res.body.requestId).toEqual(expect.any(String));
    expect((await exchange(asUser({ scope: '   ' }))).body.error.code).toBe('invalid_scope');
  });

  it('never outlives the subject token', async () => {
    const fresh = (await auth.login(user.username, user.password)).access_token;
    // One second later the issuer's own lifetime would end after the subject's: the subject's end wins.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await exchange({ grant_type: GRANT, subject_token: fresh, subject_token_type: ACCESS });
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token).exp).toBe(claimsOf(fresh).exp);
  });

  it('takes the actor as actor_token instead of the bearer', async () => {
    const res = await exchange(asUser({ actor_token: gateway.token, actor_token_type: ACCESS }), null);
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token).act).toEqual({ sub: 'service:gateway', client_id: 'gateway' });
    const wrongType = await exchange(asUser({ actor_token: gateway.token, actor_token_type: 'urn:x' }), null);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.code).toBe('invalid_request');
  });

  it('nests the actors when a delegated token is exchanged again', async () => {
    const first = (await exchange(asUser())).body.access_token as string;
    const master = await auth.serviceToken('master', ['tokens:exchange']);
    const res = await exchange({ grant_type: GRANT, subject_token: first, subject_token_type: ACCESS }, master.token);
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token)).toMatchObject({
      sub: user.id,
      act: { sub: 'service:master', client_id: 'master', act: { sub: 'service:gateway', client_id: 'gateway' } },
    });
  });

  it('answers 401 without an actor and 403 to an actor without tokens:exchange', async () => {
    const anonymous = await exchange(asUser(), null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ type: 'authentication_error' });
    const plain = await auth.serviceToken('plain', ['agents:read']);
    const refused = await exchange(asUser(), plain.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_permissions', details: { required: 'tokens:exchange' } });
  });

  it('refuses another grant type, another token type and a missing subject', async () => {
    const grant = await exchange(asUser({ grant_type: 'client_credentials' }));
    expect(grant.status).toBe(400);
    expect(grant.body.error.code).toBe('unsupported_grant_type');
    const type = await exchange(asUser({ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }));
    expect(type.status).toBe(400);
    expect(type.body.error.code).toBe('invalid_request');
    const missing = await exchange({ grant_type: GRANT, subject_token_type: ACCESS });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
  });

  it('refuses a revoked, forged or garbled subject token: invalid_grant', async () => {
    const victim = (await auth.login(user.username, user.password)).access_token;
    const revoke = await auth.http().post('/api/v1/auth/revoke').set('Authorization', `Bearer ${victim}`).send({ token: victim });
    expect(revoke.body).toMatchObject({ revoked: true, jti: expect.any(String) });
    const revoked = await exchange({ grant_type: GRANT, subject_token: victim, subject_token_type: ACCESS });
    expect(revoked.status).toBe(400);
    expect(revoked.body.error).toMatchObject({ code: 'invalid_grant', message: expect.stringContaining('revoked') });
    const [header, , signature] = subject.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...claimsOf(subject), permissions: ['*'] })).toString('base64url');
    const forged = await exchange({ grant_type: GRANT, subject_token: `${header}.${forgedPayload}.${signature}`, subject_token_type: ACCESS });
    expect(forged.body.error.code).toBe('invalid_grant');
    const garbled = await exchange({ grant_type: GRANT, subject_token: 'not-a-token', subject_token_type: ACCESS });
    expect(garbled.status).toBe(400);
    expect(garbled.body.error.code).toBe('invalid_grant');
  });

  it('narrows the audience to a configured one and refuses others', async () => {
    const ok = await exchange(asUser({ audience: 'agent-platform' }));
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.body.access_token).aud).toEqual(['agent-platform']);
    const other = await exchange(asUser({ audience: 'https://elsewhere.example' }));
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_target');
  });
});
