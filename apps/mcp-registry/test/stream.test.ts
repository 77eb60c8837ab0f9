import { publishRevocation, RedisRevocationList } from '@platform/jwt';
import { eventually, TestIssuer, testRedis, uniqueName } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { WebSocket } from 'ws';
import { startHarness, type Harness } from './fixtures';
import { Gate, startHttpMcpServer, type RunningServer } from './mcp-servers';

interface Message {
  type: string;
  [key: string]: unknown;
}

/** A stream client that keeps every message it receives. */
async function connect(url: string, headers: Record<string, string> = {}): Promise<{ socket: WebSocket; messages: Message[] }> {
  const socket = new WebSocket(url, { headers });
  const messages: Message[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages };
}

function refusal(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    socket.once('open', () => {
      resolve(101);
      socket.close();
    });
  });
}

describe('/registry/stream', () => {
  let h: Harness;
  let server: RunningServer;
  const tool = uniqueName('lookup');

  beforeAll(async () => {
    [h, server] = await Promise.all([startHarness(), startHttpMcpServer(tool, new Gate())]);
  });
  afterAll(async () => {
    await Promise.all([h.stop(), server.close()]);
  });

  it('refuses upgrades without a token or without mcp:read', async () => {
    expect(await refusal(`${h.wsUrl}/registry/stream`)).toBe(401);
    expect(await refusal(`${h.wsUrl}/registry/stream?access_token=not-a-token`)).toBe(401);
    expect(await refusal(`${h.wsUrl}/registry/stream`, { Authorization: h.issuer.bearer(['agents:read']) })).toBe(403);
    expect(await refusal(`${h.wsUrl}/elsewhere`, { Authorization: h.reader })).toBe(404);
  });

  it('delivers the status change and the check of a connection to subscribers, and only what they asked for', async () => {
    // The stream shows only the events of connections the caller may read: the owner's reader.
    const token = h.issuer.token({ permissions: ['mcp:read'], sub: h.sub });
    const all = await connect(`${h.wsUrl}/registry/stream?access_token=${token}`);
    const onlyChecks = await connect(`${h.wsUrl}/registry/stream`, { Authorization: h.reader });
    all.socket.send(JSON.stringify({ action: 'subscribe', events: ['connection-status', 'health-check', 'capability-request'] }));
    onlyChecks.socket.send(JSON.stringify({ action: 'subscribe', events: ['health-check'] }));
    await eventually(() => all.messages.some((m) => m.type === 'subscribed') && onlyChecks.messages.some((m) => m.type === 'subscribed'));

    const created = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({ name: uniqueName('streamed'), protocol: 'http', endpoint: { url: server.url }, healthCheck: { enabled: false, interval: 30, timeout: 20_000 } });
    const id = created.body.id as string;
    await request(h.url).patch(`/connections/${id}`).set('Authorization', h.writer).send({ status: 'idle' }).expect(200);
    await request(h.url).post(`/connections/${id}/health-check`).set('Authorization', h.writer).expect(200);
    await request(h.url)
      .post(`/connections/${id}/tools/${tool}/call`)
      .set('Authorization', h.writer)
      .send({ arguments: { key: 'x' } })
      .expect(200);

    const mine = (messages: Message[]) => messages.filter((m) => m.connectionId === id);
    await eventually(() => mine(all.messages).length >= 4);
    expect(mine(all.messages)).toEqual([
      expect.objectContaining({ type: 'connection-status', status: 'active', timestamp: expect.any(String) }),
      expect.objectContaining({ type: 'connection-status', status: 'idle', previousStatus: 'active' }),
      expect.objectContaining({ type: 'health-check', health: 'healthy', responseTime: expect.any(Number) }),
      expect.objectContaining({ type: 'capability-request', capability: tool, success: true, latency: expect.any(Number) }),
    ]);
    await eventually(() => mine(onlyChecks.messages).length >= 1);
    expect(mine(onlyChecks.messages).map((m) => m.type)).toEqual(['health-check']);

    all.socket.send('not json');
    all.socket.send(JSON.stringify({ action: 'subscribe', events: ['everything'] }));
    await eventually(() => all.messages.filter((m) => m.type === 'error').length === 2);
    all.socket.close();
    onlyChecks.socket.close();
  });

  it('fans out events published by another replica through Redis', async () => {
    const client = await connect(`${h.wsUrl}/registry/stream`, { Authorization: h.reader });
    client.socket.send(JSON.stringify({ action: 'subscribe', events: ['connection-status'] }));
    await eventually(() => client.messages.some((m) => m.type === 'subscribed'));
    const other = testRedis();
    // A connection of the reader's own: the stream delivers only what the caller may read.
    const { id: connectionId } = (
      await request(h.url)
        .post('/connections')
        .set('Authorization', h.writer)
        .send({
          name: uniqueName('elsewhere'),
          protocol: 'http',
          endpoint: { url: 'http://127.0.0.1:9/mcp' },
          healthCheck: { enabled: false, interval: 30, timeout: 1000 },
        })
        .expect(201)
    ).body as { id: string };
    await other.publish(
      `${h.context.config.MCP_REDIS_PREFIX}:events`,
      JSON.stringify({ type: 'connection-status', connectionId, status: 'error', timestamp: new Date().toISOString() }),
    );
    await eventually(() => client.messages.some((m) => m.connectionId === connectionId && m.status === 'error'));
    other.disconnect();
    client.socket.close();
  });

  it("sends a connection's events only to callers who may read it: owner, team members and mcp:admin", async () => {
    const team = uniqueName('team');
    const bearers = {
      owner: h.issuer.bearer(['mcp:read', 'mcp:write'], { sub: uniqueName('owner'), teams: [{ id: team, role: 'editor' }] }),
      viewer: h.issuer.bearer(['mcp:read'], { teams: [{ id: team, role: 'viewer' }] }),
      admin: h.issuer.bearer(['mcp:read', 'mcp:admin']),
      stranger: h.issuer.bearer(['mcp:read', 'mcp:write']),
      otherTeam: h.issuer.bearer(['mcp:read', 'mcp:write'], { teams: [{ id: uniqueName('team'), role: 'admin' }] }),
    };
    const sockets = Object.fromEntries(
      await Promise.all(
        Object.entries(bearers).map(async ([role, bearer]) => [role, await connect(`${h.wsUrl}/registry/stream`, { Authorization: bearer })] as const),
      ),
    ) as Record<keyof typeof bearers, Awaited<ReturnType<typeof connect>>>;
    for (const { socket, messages } of Object.values(sockets)) {
      socket.send(JSON.stringify({ action: 'subscribe', events: ['connection-status'] }));
      await eventually(() => messages.some((m) => m.type === 'subscribed'));
    }
    const register = async (bearer: string, extra: Record<string, unknown> = {}) =>
      (
        await request(h.url)
          .post('/connections')
          .set('Authorization', bearer)
          .send({
            name: uniqueName('streamed'),
            protocol: 'http',
            endpoint: { url: 'http://127.0.0.1:9/mcp' },
            healthCheck: { enabled: false, interval: 30, timeout: 1000 },
            ...extra,
          })
          .expect(201)
      ).body as { id: string };
    const seen = (role: keyof typeof bearers, connectionId: string, status: string) =>
      sockets[role].messages.some((m) => m.connectionId === connectionId && m.status === status);

    const shared = await register(bearers.owner, { team });
    await request(h.url).delete(`/connections/${shared.id}`).set('Authorization', bearers.owner).expect(200);
    await eventually(() => (['owner', 'viewer', 'admin'] as const).every((role) => seen(role, shared.id, 'disconnected')));
    // Each socket gets its events in order: once the outsiders have an event of their own registered
    // after, the shared connection's events had their chance to reach them.
    const strangers = await register(bearers.stranger);
    const otherTeams = await register(bearers.otherTeam);
    await eventually(() => seen('stranger', strangers.id, 'active') && seen('otherTeam', otherTeams.id, 'active'));
    expect(sockets.stranger.messages.some((m) => m.connectionId === shared.id)).toBe(false);
    expect(sockets.otherTeam.messages.some((m) => m.connectionId === shared.id)).toBe(false);
    expect(seen('stranger', otherTeams.id, 'active') || seen('otherTeam', strangers.id, 'active')).toBe(false);
    for (const { socket } of Object.values(sockets)) socket.close();
    await h.db.connection.deleteMany({ where: { id: { in: [shared.id, strangers.id, otherTeams.id] } } });
  });
});

/** The stream follows the platform's socket rules (SocketGateway): expiry, revocation, a cap per caller. */
describe('/registry/stream: tokens and limits', () => {
  let h: Harness;
  let issuer: TestIssuer;
  const redis = testRedis();
  const revocations = new RedisRevocationList(redis);
  const closed = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

  beforeAll(async () => {
    // Revocations as the platform's verifier hears them: through Redis.
    [issuer] = await Promise.all([new TestIssuer().start(), revocations.start()]);
    h = await startHarness({ MCP_STREAM_MAX_PER_USER: '2' }, { issuer, verifier: issuer.verifier(revocations) });
  });
  afterAll(async () => {
    await h.stop();
    await Promise.all([issuer.stop(), revocations.stop()]);
    redis.disconnect();
  });

  it('closes a socket when its token expires (4401)', async () => {
    const token = h.issuer.token({ permissions: ['mcp:read'], expiresInSeconds: 2 });
    const { socket } = await connect(`${h.wsUrl}/registry/stream?access_token=${token}`);
    expect(await closed(socket)).toBe(4401);
  });

  it('closes a socket when its token is revoked (4403)', async () => {
    const jti = randomUUID();
    const { socket } = await connect(`${h.wsUrl}/registry/stream`, { Authorization: h.issuer.bearer(['mcp:read'], { jti }) });
    const code = closed(socket);
    await publishRevocation(redis, jti, Math.floor(Date.now() / 1000) + 3600);
    expect(await code).toBe(4403);
  });

  it('caps the open sockets of one caller (429 beyond), leaving other callers alone', async () => {
    const sub = uniqueName('streamer');
    const bearer = () => h.issuer.bearer(['mcp:read'], { sub });
    const first = await connect(`${h.wsUrl}/registry/stream`, { Authorization: bearer() });
    const second = await connect(`${h.wsUrl}/registry/stream`, { Authorization: bearer() });
    expect(await refusal(`${h.wsUrl}/registry/stream`, { Authorization: bearer() })).toBe(429);
    expect(await refusal(`${h.wsUrl}/registry/stream`, { Authorization: h.issuer.bearer(['mcp:read'], { sub: uniqueName('other') }) })).toBe(101);
    const gone = closed(first.socket);
    first.socket.close();
    await gone;
    await eventually(async () => (await refusal(`${h.wsUrl}/registry/stream`, { Authorization: bearer() })) === 101);
    second.socket.close();
  });
});
