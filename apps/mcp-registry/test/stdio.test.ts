import { eventually, uniqueName } from '@platform/testing';
import { existsSync } from 'node:fs';
import request from 'supertest';
import { HANGING_SERVER, startHarness, stdioEverything, type Harness } from './fixtures';
import { isRunning, processStartTicks } from '../src/supervisor/process-info';

/** The MCP reference server, run as a supervised stdio process: one per test file, reused. */
describe('stdio connections', () => {
  let h: Harness;
  let everythingId: string;

  beforeAll(async () => {
    h = await startHarness();
    const res = await request(h.url).post('/connections').set('Authorization', h.admin).send(stdioEverything());
    expect(res.status).toBe(201);
    everythingId = res.body.id;
  });
  afterAll(() => h.stop());

  it('registers the reference server as initializing, then checks it healthy with its real tools', async () => {
    const before = await request(h.url).get(`/connections/${everythingId}`).set('Authorization', h.reader);
    expect(before.body).toMatchObject({ status: 'active', protocol: 'stdio', health: { status: 'initializing', checksPerformed: 0 } });

    const check = await request(h.url).post(`/connections/${everythingId}/health-check`).set('Authorization', h.writer);
    expect(check.status).toBe(200);
    expect(check.body.health.status).toBe('healthy');
    expect(check.body.diagnostics).toMatchObject({ processRunning: true, activeRequests: 0 });
    expect(check.body.diagnostics.memoryUsage).toMatch(/^\d+(\.\d)? MB$/);
    expect(isRunning(check.body.diagnostics.pid)).toBe(true);

    const detail = await request(h.url).get(`/connections/${everythingId}`).set('Authorization', h.reader);
    expect(detail.body.health).toMatchObject({ status: 'healthy', checksPerformed: 1, failedChecks: 0, errorRate: 0 });
    // Stored in UTC: an hour-sized shift would mean a time-zone mix-up, not a slow check.
    expect(Math.abs(Date.parse(detail.body.health.lastCheck) - Date.now())).toBeLessThan(3_600_000);
    const echo = detail.body.capabilities.find((capability: { name: string }) => capability.name === 'echo');
    expect(echo.description).toEqual(expect.any(String));
    expect(echo.schema).toMatchObject({ type: 'object', properties: { message: expect.any(Object) } });
    expect(detail.body.capabilities.map((capability: { name: string }) => capability.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'demo']));
  });

  it('calls a tool and records the request metrics', async () => {
    const call = await request(h.url)
      .post(`/connections/${everythingId}/tools/get-sum/call`)
      .set('Authorization', h.writer)
      .send({ arguments: { a: 2, b: 3 } });
    expect(call.status).toBe(200);
    expect(call.body.success).toBe(true);
    expect(JSON.stringify(call.body.result.content)).toContain('5');
    const unknown = await request(h.url).post(`/connections/${everythingId}/tools/no-such-tool/call`).set('Authorization', h.writer).send({});
    expect(unknown.status).toBe(404);
    const detail = await request(h.url).get(`/connections/${everythingId}`).set('Authorization', h.reader);
    expect(detail.body.metrics).toMatchObject({ totalRequests: 1, successRate: 1, errorRate: 0, requestsPerMinute: 1 });
    expect(detail.body.metrics.p95Latency).toBeGreaterThan(0);
  });

  it('restarts the server process when it is killed', async () => {
    const first = await request(h.url).post(`/connections/${everythingId}/health-check`).set('Authorization', h.writer);
    const pid: number = first.body.diagnostics.pid;
    process.kill(pid, 'SIGKILL');
    const restarted = await eventually(() => {
      const diagnostics = h.context.supervisor.diagnostics(everythingId);
      return diagnostics.pid !== pid && diagnostics.processRunning ? diagnostics : undefined;
    }, 20_000);
    expect(restarted.restarts).toBe(1);
    const after = await request(h.url).post(`/connections/${everythingId}/health-check`).set('Authorization', h.writer);
    expect(after.body.health.status).toBe('healthy');
    expect(after.body.diagnostics.pid).toBe(restarted.pid);
  });

  it('checks a command that does not exist as an error', async () => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send(stdioEverything(uniqueName('missing'), { endpoint: { command: `mcp-does-not-exist-${process.pid}`, args: [] } }));
    expect(res.status).toBe(201);
    const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect(check.status).toBe(200);
    expect(check.body.health.status).toBe('error');
    expect(check.body.error).toContain('command not found');
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body).toMatchObject({ status: 'error', health: { status: 'error', failedChecks: 1, errorRate: 1 } });
  });

  it('checks a server that hangs past the timeout as an error and kills it', async () => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send(
        stdioEverything(uniqueName('hang'), {
          endpoint: { command: 'node', args: [HANGING_SERVER] },
          healthCheck: { enabled: false, interval: 30, timeout: 500 },
        }),
      );
    expect(res.status).toBe(201);
    const batch = await request(h.url)
      .post('/connections/health-check/batch')
      .set('Authorization', h.writer)
      .send({ connectionIds: [res.body.id, everythingId] });
    expect(batch.status).toBe(200);
    const hung = batch.body.results.find((result: { connectionId: string }) => result.connectionId === res.body.id);
    expect(hung).toMatchObject({ status: 'error', error: expect.stringMatching(/timed out|no answer/i) });
    expect(batch.body.summary).toEqual({ total: 2, healthy: 1, unhealthy: 1 });
    expect(h.context.supervisor.diagnostics(res.body.id).processRunning).toBe(false);
  });

  it('refuses a command off the allow-list and a caller without the admin permission', async () => {
    const offList = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send(stdioEverything(uniqueName('sh'), { endpoint: { command: 'sh', args: ['-c', 'echo pwned'] } }));
    expect(offList.status).toBe(400);
    expect(offList.body.error).toMatchObject({ type: 'validation_error', code: 'command_not_allowed' });
    const byPath = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send(stdioEverything(uniqueName('bash'), { endpoint: { command: '/bin/bash' } }));
    expect(byPath.status).toBe(400);
    const notAdmin = await request(h.url).post('/connections').set('Authorization', h.writer).send(stdioEverything());
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error).toMatchObject({ type: 'authorization_error', code: 'insufficient_permissions', details: { required: 'mcp:admin' } });
    const patch = await request(h.url).patch(`/connections/${everythingId}`).set('Authorization', h.writer).send({ status: 'idle' });
    expect(patch.status).toBe(403);
  });

  it('runs the server in its own session, directory and environment, and ends its group on disconnect', async () => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send(stdioEverything(uniqueName('short')));
    const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    const pid: number = check.body.diagnostics.pid;
    const { readFileSync } = await import('node:fs');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    expect(Number(fields[2])).toBe(pid); // process group id: its own group
    expect(Number(fields[3])).toBe(pid); // session id: its own session
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(env.some((entry) => entry.startsWith('DATABASE_URL=') || entry.startsWith('REDIS_URL='))).toBe(false);
    const cwd = (await import('node:fs')).readlinkSync(`/proc/${pid}/cwd`);
    expect(cwd).toContain(res.body.id);
    const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
    expect(limits).toMatch(/Max data size\s+1073741824/);

    const del = await request(h.url).delete(`/connections/${res.body.id}`).set('Authorization', h.admin);
    expect(del.body).toMatchObject({ id: res.body.id, status: 'disconnected', disconnectedAt: expect.any(String) });
    expect(isRunning(pid)).toBe(false);
    expect(existsSync(cwd)).toBe(false);
    const again = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect(again.status).toBe(409);
  });

  it('reaps the processes a registry that died left behind', async () => {
    const { spawn } = await import('node:child_process');
    const orphan = spawn('/usr/bin/setsid', [process.execPath, HANGING_SERVER], { stdio: 'ignore', detached: false });
    await eventually(() => processStartTicks(orphan.pid!) !== undefined);
    await h.db.supervisedProcess.create({
      data: {
        host: h.context.instance.host,
        pid: orphan.pid!,
        startTicks: processStartTicks(orphan.pid!)!,
        instanceId: `dead-${uniqueName()}`,
        connectionId: everythingId,
        command: 'node',
        workDir: '/nonexistent',
      },
    });
    expect(await h.context.records.reapOrphans()).toBeGreaterThanOrEqual(1);
    await eventually(() => !isRunning(orphan.pid!));
    const left = await h.db.supervisedProcess.count({ where: { pid: orphan.pid! } });
    expect(left).toBe(0);
  });

  it('closes sessions nothing used for MCP_SESSION_IDLE_SECONDS, ending their process', async () => {
    const pid = h.context.supervisor.diagnostics(everythingId).pid;
    expect(pid).not.toBeNull();
    const idleMs = h.context.config.MCP_SESSION_IDLE_SECONDS * 1000;
    expect(await h.context.supervisor.closeIdle(Date.now() + idleMs)).toBeGreaterThanOrEqual(1);
    expect(isRunning(pid!)).toBe(false);
    expect(h.context.supervisor.diagnostics(everythingId).processRunning).toBe(false);
  });
});
