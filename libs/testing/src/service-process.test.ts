import path from 'node:path';
import { spawnService } from './service-process';
import { TestIssuer } from './test-issuer';

describe('spawnService', () => {
  const issuer = new TestIssuer();
  const entry = path.join(__dirname, 'fixtures/echo-service.ts');
  beforeAll(() => issuer.start());
  afterAll(() => issuer.stop());

  it('runs a service as its own process on a free port, and stops it gracefully', async () => {
    const echo = await spawnService('echo-fixture', {
      entry,
      env: { AUTH_URL: new URL(issuer.jwksUri).origin, AUTH_ISSUER: issuer.issuer, ECHO_GREETING: 'hi there' },
    });
    try {
      expect((await fetch(`${echo.url}/health/ready`)).status).toBe(200);
      const greeting = await fetch(`${echo.url}/api/greeting`, { headers: { Authorization: issuer.bearer(['echo:read']) } });
      expect(await greeting.json()).toEqual({ greeting: 'hi there' });
    } finally {
      await echo.stop();
    }
    expect(echo.child.exitCode).toBe(0);
  }, 60_000);

  it('kills a service at once, as a crash would', async () => {
    const echo = await spawnService('echo-fixture', { entry });
    await echo.kill();
    expect(echo.child.signalCode).toBe('SIGKILL');
    await expect(fetch(`${echo.url}/health/live`)).rejects.toThrow();
  }, 60_000);

  it('rejects with the last log lines when the service cannot start', async () => {
    await expect(spawnService('echo-fixture', { entry, env: { REDIS_URL: 'redis://127.0.0.1:1' } })).rejects.toThrow(
      /echo-fixture exited .* before it listened[\s\S]*Redis is not reachable/,
    );
  }, 60_000);
});
