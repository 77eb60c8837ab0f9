import { bullmqConnection } from '@platform/data';
import { uniqueName } from '@platform/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';
import { Gate, startHttpMcpServer, startWebSocketMcpServer, type RunningServer, type RunningWebSocketServer } from './mcp-servers';

/** Streamable HTTP and WebSocket MCP servers started inside the test, checked over the real protocol. */
describe('http and websocket connections', () => {
  let h: Harness;
  const tool = uniqueName('lookup');
  const gate = new Gate();
  let httpServer: RunningServer;
  let wsServer: RunningWebSocketServer;

  beforeAll(async () => {
    [h, httpServer, wsServer] = await Promise.all([startHarness(), startHttpMcpServer(tool, gate), startWebSocketMcpServer(tool, gate)]);
  });
  afterAll(async () => {
    gate.release();
    await Promise.all([h.stop(), httpServer.close(), wsServer.close()]);
  });

  const register = (protocol: string, url: string, extra: Record<string, unknown> = {}) =>
    request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({
        name: uniqueName(protocol),
        type: 'server',
        protocol,
        endpoint: { url },
        capabilities: ['lookup'],
        healthCheck: { enabled: false, interval: 30, timeout: 20_000 },
        ...extra,
      });

  it('registers an http server without admin rights and checks it healthy with its tools', async () => {
    const res = await register('http', httpServer.url);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', connection: { protocol: 'http', health: { status: 'initializing' } } });
    const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect(check.body).toMatchObject({ health: { status: 'healthy' }, diagnostics: { processRunning: true, tools: 2, pid: null } });
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body.capabilities.map((c: { name: string }) => c.name).sort()).toEqual(['lookup', tool, `${tool}-gated`].sort());
    expect(detail.body.capabilities.find((c: { name: string }) => c.name === tool)).toMatchObject({
      description: 'Looks a key up',
      schema: { properties: { key: { type: 'string' } } },
    });

    const call = await request(h.url)
      .post(`/connections/${res.body.id}/tools/${tool}/call`)
      .set('Authorization', h.writer)
      .send({ arguments: { key: 'k1' } });
    expect(call.body).toMatchObject({ success: true, result: { content: [{ type: 'text', text: 'value of k1' }] } });
    const invalid = await request(h.url)
      .post(`/connections/${res.body.id}/tools/${tool}/call`)
      .set('Authorization', h.writer)
      .send({ arguments: { key: 42 } });
    expect(invalid.status).toBe(200);
    expect(invalid.body.success).toBe(false);
    const detailAfter = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detailAfter.body.metrics).toMatchObject({ totalRequests: 2, successRate: 0.5, errorRate: 0.5 });
  });

  it('checks a websocket server healthy', async () => {
    const res = await register('websocket', wsServer.url);
    expect(res.status).toBe(201);
    const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect(check.body).toMatchObject({ health: { status: 'healthy' }, diagnostics: { tools: 2 } });
  });

  it('lists the tools of a server that announces changes again only after it announced one', async () => {
    const res = await register('websocket', wsServer.url);
    const check = () => request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect((await check()).body.diagnostics.tools).toBe(2);
    const listed = wsServer.requests('tools/list');
    const pinged = wsServer.requests('ping');
    expect((await check()).body).toMatchObject({ health: { status: 'healthy' }, diagnostics: { tools: 2 } });
    expect(wsServer.requests('ping')).toBe(pinged + 1);
    expect(wsServer.requests('tools/list')).toBe(listed);

    const late = uniqueName('late');
    wsServer.addTool(late);
    const { eventually } = await import('@platform/testing');
    await eventually(async () => (await check()).body.diagnostics.tools === 3);
    expect(wsServer.requests('tools/list')).toBeGreaterThan(listed);
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body.capabilities.map((c: { name: string }) => c.name)).toContain(late);
    await request(h.url).delete(`/connections/${res.body.id}`).set('Authorization', h.writer);
  });

  it('checks an endpoint where nothing listens as an error and moves the connection to error', async () => {
    const res = await register('http', 'http://127.0.0.1:9/mcp');
    const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    expect(check.body.health.status).toBe('error');
    expect(check.body.error).toEqual(expect.any(String));
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body).toMatchObject({ status: 'error', health: { status: 'error', uptime: 0 } });
  });

  it("records a failing server's HTTP status, never the body it answered, as the check's error", async () => {
    const secret = 'internal-only-b7e2';
    const internal = http.createServer((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`database password: ${secret}`);
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    try {
      const res = await register('http', `http://127.0.0.1:${(internal.address() as AddressInfo).port}/mcp`);
      const check = await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
      expect(check.body).toMatchObject({ health: { status: 'error' }, error: 'the server answered HTTP 500' });
      const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
      expect(detail.body.health.lastError).toBe('the server answered HTTP 500');
      const call = await request(h.url).post(`/connections/${res.body.id}/tools/anything/call`).set('Authorization', h.writer).send({ arguments: {} });
      expect(call.status).toBe(502);
      expect(JSON.stringify([check.body, detail.body, call.body])).not.toContain(secret);
    } finally {
      internal.closeAllConnections();
      await new Promise<void>((resolve) => internal.close(() => resolve()));
    }
  });

  it('refuses a protocol and endpoint that do not match, with the issues', async () => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({ name: uniqueName('bad'), protocol: 'websocket', endpoint: { url: 'http://127.0.0.1/mcp' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.endpoint.url' })]);
  });

  it('runs scheduled checks through the queue', async () => {
    const res = await register('http', httpServer.url, { healthCheck: { enabled: true, interval: 5, timeout: 20_000 } });
    const { eventually } = await import('@platform/testing');
    const detail = await eventually(async () => {
      const body = (await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader)).body;
      return body.health.checksPerformed > 0 ? body : undefined;
    }, 20_000);
    expect(detail.health.status).toBe('healthy');
    const schedulers = await h.context.scheduler['queue'].queue.getJobSchedulers();
    expect(schedulers.map((s: { key: string }) => s.key)).toContain(`connection:${res.body.id}`);
    await request(h.url).delete(`/connections/${res.body.id}`).set('Authorization', h.writer);
    const after = await h.context.scheduler['queue'].queue.getJobSchedulers();
    expect(after.map((s: { key: string }) => s.key)).not.toContain(`connection:${res.body.id}`);
  });

  it("skips a scheduled check while another replica holds the connection's lock", async () => {
    const { eventually, testRedis } = await import('@platform/testing');
    const { QueueEvents } = await import('bullmq');
    const res = await register('http', httpServer.url);
    const id = res.body.id as string;
    const redis = testRedis();
    const lock = `${h.context.config.MCP_REDIS_PREFIX}:check-lock:${id}`;
    await redis.set(lock, 'another-replica', 'PX', 60_000);
    const queueEvents = new QueueEvents(h.context.config.MCP_HEALTH_QUEUE, { connection: bullmqConnection(h.context.config.REDIS_URL, 'worker') });
    await queueEvents.waitUntilReady();
    const outcomes: unknown[] = [];
    queueEvents.on('completed', ({ jobId, returnvalue }) => {
      if (jobId.includes(id)) outcomes.push(typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue);
    });
    try {
      await request(h.url)
        .patch(`/connections/${id}`)
        .set('Authorization', h.writer)
        .send({ healthCheck: { enabled: true, interval: 5 } })
        .expect(200);
      await eventually(() => outcomes.length >= 1, 20_000);
      expect(outcomes[0]).toMatchObject({ skipped: expect.any(String) });
      expect((await request(h.url).get(`/connections/${id}`).set('Authorization', h.reader)).body.health.checksPerformed).toBe(0);
      await redis.del(lock);
      await eventually(() => outcomes.some((outcome) => (outcome as { status?: string }).status === 'healthy'), 20_000);
      expect((await request(h.url).get(`/connections/${id}`).set('Authorization', h.reader)).body.health.checksPerformed).toBeGreaterThanOrEqual(1);
    } finally {
      await request(h.url).delete(`/connections/${id}`).set('Authorization', h.writer);
      await queueEvents.close();
      redis.disconnect();
    }
  });
});
