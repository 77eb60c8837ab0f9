import { createLogger } from '@platform/telemetry';
import { TestIssuer } from '@platform/testing';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { notFound } from './errors';
import { SocketCloseCode, SocketGateway } from './websocket';

describe('SocketGateway', () => {
  const issuer = new TestIssuer();
  const revoked = new Set<string>();
  let server: Server;
  let gateway: SocketGateway;
  let base: string;

  beforeAll(async () => {
    await issuer.start();
    gateway = new SocketGateway(issuer.verifier({ isRevoked: (jti) => revoked.has(jti) }), createLogger('ws-test', '0', 'silent'), {
      maxPerUser: 2,
      revocationCheckMs: 50,
    });
    gateway.endpoint({
      path: '/things/:id/stream',
      permission: 'things:read',
      authorize: ({ params }) => {
        if (params.id === 'missing') throw notFound('No thing missing');
      },
      onConnection: (ws, { params, claims }) => ws.send(JSON.stringify({ hello: claims.sub, id: params.id })),
    });
    server = http.createServer((_req, res) => res.end());
    gateway.attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gateway.close();
    server.close();
    await issuer.stop();
  });

  /** Opens a socket; resolves with its first message, or with the refusal's status. */
  const open = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ ws?: WebSocket; first?: unknown; status?: number; body?: string }>((resolve) => {
      const ws = new WebSocket(`${base}${path}`, { headers });
      ws.once('message', (data) => resolve({ ws, first: JSON.parse(String(data)) }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
    });
  const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

  it('accepts a token with the permission (header or access_token) and passes the path params', async () => {
    const viaHeader = await open('/things/t1/stream', { Authorization: issuer.bearer(['things:read'], { sub: 'alice' }) });
    expect(viaHeader.first).toEqual({ hello: 'alice', id: 't1' });
    const viaQuery = await open(`/things/t2/stream?access_token=${issuer.token({ permissions: ['things:read'], sub: 'bob' })}`);
    expect(viaQuery.first).toEqual({ hello: 'bob', id: 't2' });
    viaHeader.ws?.close();
    viaQuery.ws?.close();
  });

  it('refuses the upgrade without a token, with a bad token, without the permission, or for an unknown resource or path', async () => {
    expect((await open('/things/t1/stream')).status).toBe(401);
    expect((await open('/things/t1/stream', { Authorization: 'Bearer nope' })).status).toBe(401);
    const denied = await open('/things/t1/stream', { Authorization: issuer.bearer(['other:read']) });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body!).error.code).toBe('insufficient_permissions');
    expect((await open('/things/missing/stream', { Authorization: issuer.bearer(['things:read']) })).status).toBe(404);
    expect((await open('/elsewhere', { Authorization: issuer.bearer(['things:read']) })).status).toBe(404);
  });

  it('caps the sockets one caller holds', async () => {
    const auth = { Authorization: issuer.bearer(['things:read'], { sub: 'carol' }) };
    const first = await open('/things/a/stream', auth);
    const second = await open('/things/b/stream', auth);
    expect((await open('/things/c/stream', auth)).status).toBe(429);
    const gone = closed(first.ws!);
    first.ws!.close();
    await gone;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = await open('/things/c/stream', auth);
    expect(third.first).toMatchObject({ id: 'c' });
    second.ws!.close();
    third.ws!.close();
  });

  it('closes a socket when its token expires (4401) or is revoked (4403)', async () => {
    const expiring = await open('/things/e/stream', { Authorization: issuer.bearer(['things:read'], { expiresInSeconds: 1 }) });
    expect(await closed(expiring.ws!)).toBe(SocketCloseCode.tokenExpired);
    const jti = `jti-${Date.now()}`;
    const revocable = await open('/things/r/stream', { Authorization: issuer.bearer(['things:read'], { jti }) });
    const code = closed(revocable.ws!);
    revoked.add(jti);
    expect(await code).toBe(SocketCloseCode.tokenRevoked);
  });
});
