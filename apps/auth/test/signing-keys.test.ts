import { randomBytes } from 'node:crypto';
import { decodeCompactJws } from '@platform/jwt';
import { eventually } from '@platform/testing';
import { keyRotationWorker, scheduleKeyRotation } from '../src/signing-keys/key-rotation.queue';
import { startAuth, type AuthHarness } from './fixtures';

const kidOf = (token: string) => decodeCompactJws(token).header.kid as string;

describe('signing keys', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth({ AUTH_KEY_ROTATION_INTERVAL: '1' });
  });
  afterAll(() => auth.close());

  const jwksKids = async () => ((await auth.http().get('/.well-known/jwks.json')).body.keys as Array<{ kid: string }>).map((key) => key.kid);
  const validate = async (token: string) => (await auth.http().post('/api/v1/auth/validate').send({ token })).body;

  it('keeps private keys encrypted at rest', async () => {
    const rows = await auth.db.signingKey.findMany();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.privateKeyEncrypted).toMatch(/^v1\./);
      expect(row.privateKeyEncrypted).not.toContain('PRIVATE KEY');
    }
  });

  it('rotates on an admin request; the old key stays published and its tokens stay valid', async () => {
    const user = await auth.createUser();
    const before = await auth.login(user.username, user.password);
    const oldKid = kidOf(before.access_token);
    const rotated = await auth
      .http()
      .post('/api/v1/auth/admin/signing-keys/rotate')
      .set('Authorization', `Bearer ${await auth.admin()}`);
    expect(rotated.status).toBe(202);
    expect(rotated.body).toMatchObject({ state: 'active' });
    const after = await auth.login(user.username, user.password);
    expect(kidOf(after.access_token)).toBe(rotated.body.kid);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, rotated.body.kid]));
    expect(await validate(before.access_token)).toMatchObject({ valid: true });
    const listed = await auth
      .http()
      .get('/api/v1/auth/admin/signing-keys')
      .set('Authorization', `Bearer ${await auth.admin()}`);
    const old = listed.body.keys.find((key: { kid: string }) => key.kid === oldKid);
    expect(old.state).toBe('retired');
    // It leaves the JWKS only after every token it signed has expired (1 h access tokens).
    expect(new Date(old.expiresAt).getTime()).toBeGreaterThanOrEqual(new Date(old.retiredAt).getTime() + 3600 * 1000);
    expect(await auth.db.auditEvent.count({ where: { eventType: 'signing_key_rotated', metadata: { path: ['kid'], equals: rotated.body.kid } } })).toBe(1);
  });

  it('rotates on schedule through the BullMQ job', async () => {
    const before = auth.service.keys.signingKey().kid;
    const schedule = await scheduleKeyRotation(auth.config.REDIS_URL);
    const worker = keyRotationWorker(auth.config.REDIS_URL, auth.service.keys, auth.service.audit);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the key is now older than the 1 s interval
      await schedule.add('rotate-if-due', {});
      await eventually(async () => {
        await auth.service.keys.load();
        return auth.service.keys.signingKey().kid !== before;
      }, 15_000);
    } finally {
      await worker.close();
      await schedule.close();
    }
    expect(
      await auth.db.auditEvent.count({ where: { eventType: 'signing_key_rotated', metadata: { path: ['trigger'], equals: 'schedule' } } }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('publishes a new key before it signs anything, and refuses a second rotation meanwhile', async () => {
    const slow = await startAuth({ AUTH_KEY_PREPUBLISH: '600' });
    try {
      const user = await slow.createUser();
      const current = slow.service.keys.signingKey().kid;
      const rotated = await slow
        .http()
        .post('/api/v1/auth/admin/signing-keys/rotate')
        .set('Authorization', `Bearer ${await slow.admin()}`);
      expect(rotated.status).toBe(202);
      expect(rotated.body.state).toBe('pending');
      expect(new Date(rotated.body.activatesAt).getTime()).toBeGreaterThan(Date.now() + 590_000);
      expect(await jwksKids()).toContain(rotated.body.kid);
      const token = await slow.login(user.username, user.password);
      expect(kidOf(token.access_token)).toBe(current);
      // A replica (re)starting during the pre-publication window adds no key of its own.
      const keysBefore = await slow.db.signingKey.count();
      const restarted = await startAuth();
      await restarted.close();
      expect(await slow.db.signingKey.count()).toBe(keysBefore);
      const again = await slow
        .http()
        .post('/api/v1/auth/admin/signing-keys/rotate')
        .set('Authorization', `Bearer ${await slow.admin()}`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('conflict');
      expect((await jwksKids()).length).toBeLessThanOrEqual(5);
    } finally {
      await slow.close();
    }
  });

  it('refuses to start, naming the variable, when AUTH_ENCRYPTION_KEY cannot open the stored keys', async () => {
    await expect(startAuth({ AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64') })).rejects.toThrow(
      /AUTH_ENCRYPTION_KEY does not open the stored signing key/,
    );
  });

  it('lets only admins rotate', async () => {
    const user = await auth.createUser(['agents:read']);
    const token = (await auth.login(user.username, user.password)).access_token;
    const res = await auth.http().post('/api/v1/auth/admin/signing-keys/rotate').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(403);
  });
});
