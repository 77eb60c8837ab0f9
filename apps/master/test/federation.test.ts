import { TypedQueue } from '@platform/queues';
import { eventually, TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import { Client } from 'pg';
import request from 'supertest';
import { federationSyncQueue } from '../src/federation/federation-queue';
import { createAgent, manifest, startMaster, type Master } from './harness';

/** The peer platform keeps its own database and Redis, as another installation would. */
const PEER_REDIS_URL = (() => {
  const url = new URL(testRedisUrl);
  url.pathname = '/7';
  return url.toString();
})();

async function peerDatabaseUrl(): Promise<string> {
  const name = 'platform_federation_peer';
  const client = new Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04' && (error as { code?: string }).code !== '23505') throw error;
  } finally {
    await client.end();
  }
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('federation between two master instances', () => {
  let peerIssuer: TestIssuer;
  let peer: Master;
  let home: Master;
  let joinBody: Record<string, string>;
  const admin = () => home.auth(['federation:admin', 'federation:read'], 'operator');

  beforeAll(async () => {
    peerIssuer = await new TestIssuer().start();
    peer = await startMaster({ DATABASE_URL: await peerDatabaseUrl(), REDIS_URL: PEER_REDIS_URL }, peerIssuer);
    home = await startMaster();
    joinBody = {
      name: uniqueName('peer'),
      url: `${peer.url}/api/v1`,
      jwksUrl: peerIssuer.jwksUri,
      token: peerIssuer.token({ sub: 'federation-home', permissions: ['agents:read'] }),
    };
  }, 60_000);
  afterAll(async () => {
    await home?.stop();
    await peer?.stop();
    await peerIssuer.stop();
  });

  it('joins after checking the peer, mirrors its public catalog read-only with its origin, and lists the node', async () => {
    const namespace = uniqueName('fed');
    const published = await createAgent(peer, manifest({ namespace, name: 'public-one', visibility: 'public', description: 'shared' }));
    await createAgent(peer, manifest({ namespace, name: 'public-two', visibility: 'public' }));
    await createAgent(peer, manifest({ namespace, name: 'private-one', visibility: 'private' }));

    const joined = await request(home.app).post('/api/v1/federation/join').set('Authorization', admin()).send(joinBody);
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({
      name: joinBody.name,
      url: joinBody.url,
      issuer: peerIssuer.issuer,
      state: 'active',
      joinedBy: 'operator',
      lastError: null,
    });
    expect(joined.body.lastSyncAt).toEqual(expect.any(String));
    expect(joined.body.agentCount).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(joined.body)).not.toContain(joinBody.token);

    const mirrored = await request(home.app)
      .get(`/api/v1/agents?origin=${encodeURIComponent(joinBody.url)}&q=${namespace}`)
      .set('Authorization', home.auth(['agents:read']));
    expect(mirrored.body.items.map((agent: { name: string }) => agent.name)).toEqual(['public-one', 'public-two']);
    const one = mirrored.body.items[0];
    expect(one).toMatchObject({
      origin: joinBody.url,
      namespace,
      visibility: 'public',
      description: 'shared',
      manifest: published.manifest,
      createdBy: `federation:${joinBody.name}`,
    });
    // Mirrors are not local agents, and they are read-only.
    const local = await request(home.app)
      .get(`/api/v1/agents?q=${namespace}`)
      .set('Authorization', home.auth(['agents:read']));
    expect(local.body.total).toBe(0);
    expect(
      (
        await request(home.app)
          .put(`/api/v1/agents/${one.id}`)
          .set('Authorization', home.auth(['agents:write']))
          .send(published.manifest as object)
      ).status,
    ).toBe(409);
    expect(
      (
        await request(home.app)
          .delete(`/api/v1/agents/${one.id}`)
          .set('Authorization', home.auth(['agents:write']))
      ).status,
    ).toBe(409);

    const nodes = await request(home.app)
      .get('/api/v1/federation/nodes')
      .set('Authorization', home.auth(['federation:read']));
    expect(nodes.status).toBe(200);
    expect(nodes.body.items.find((node: { name: string }) => node.name === joinBody.name)).toMatchObject({ state: 'active', url: joinBody.url });
    const events = await request(home.app)
      .get('/api/v1/monitoring/events?type=federation.*&limit=500')
      .set('Authorization', home.auth(['monitoring:read']));
    const mine = events.body.items.filter((event: { subject: string }) => event.subject === joined.body.id).map((event: { type: string }) => event.type);
    expect(mine.sort()).toEqual(['federation.joined', 'federation.synced']);

    // The scheduled sync (a BullMQ job) picks up the peer's changes.
    const queue = new TypedQueue(federationSyncQueue, testRedisUrl);
    const schedulers = await queue.queue.getJobSchedulers();
    expect(schedulers.map((scheduler) => scheduler.key)).toContain('sync-all-peers');
    await createAgent(peer, manifest({ namespace, name: 'public-three', visibility: 'public' }));
    expect(
      (
        await request(peer.app)
          .delete(`/api/v1/agents/${published.id}`)
          .set('Authorization', peer.auth(['agents:write']))
      ).status,
    ).toBe(204);
    try {
      await queue.add('sync', { peerId: joined.body.id });
      await eventually(async () => {
        const res = await request(home.app)
          .get(`/api/v1/agents?origin=${encodeURIComponent(joinBody.url)}&q=${namespace}`)
          .set('Authorization', home.auth(['agents:read']));
        const names = res.body.items.map((agent: { name: string }) => agent.name).join(',');
        return names === 'public-three,public-two' || undefined;
      }, 20_000);
    } finally {
      await queue.close();
    }

    // A second join of the same peer is a conflict.
    const again = await request(home.app).post('/api/v1/federation/join').set('Authorization', admin()).send(joinBody);
    expect(again.status).toBe(409);
  });

  it('refuses a join token signed by another key, expired, or not granting agents:read, and stores nothing', async () => {
    const stranger = await new TestIssuer().start();
    try {
      const attempts: Array<[string, string]> = [
        [stranger.token({ permissions: ['agents:read'] }), 'join_token_'],
        [peerIssuer.token({ permissions: ['agents:read'], expiresInSeconds: -60 }), 'join_token_token_expired'],
        [peerIssuer.token({ permissions: ['registry:read'] }), 'join_token_permission'],
        [peerIssuer.token({ permissions: ['agents:read'], audience: 'someone-else' }), 'join_token_'],
      ];
      for (const [token, code] of attempts) {
        const name = uniqueName('refused');
        const res = await request(home.app)
          .post('/api/v1/federation/join')
          .set('Authorization', admin())
          .send({ ...joinBody, name, url: `${peer.url}/api/v1/${name}`, token });
        expect([code, res.status]).toEqual([code, 400]);
        expect(res.body.error.details.issues[0].code).toContain(code);
      }
      const nodes = await request(home.app)
        .get('/api/v1/federation/nodes')
        .set('Authorization', home.auth(['federation:read']));
      expect(nodes.body.items.some((node: { name: string }) => node.name.startsWith('refused-'))).toBe(false);
    } finally {
      await stranger.stop();
    }
  });

  it('answers 502 when the peer is down and 400 for bad bodies', async () => {
    const down = await request(home.app)
      .post('/api/v1/federation/join')
      .set('Authorization', admin())
      .send({ ...joinBody, name: uniqueName('down'), url: 'http://127.0.0.1:9/api/v1' });
    expect(down.status).toBe(502);
    expect(down.body.error.code).toBe('upstream_error');
    for (const body of [
      {},
      { ...joinBody, url: 'ftp://peer.example' },
      { ...joinBody, name: 'Bad Name' },
      { ...joinBody, token: 'short' },
      { ...joinBody, extra: true },
    ]) {
      expect((await request(home.app).post('/api/v1/federation/join').set('Authorization', admin()).send(body)).status).toBe(400);
    }
  });

  it('needs federation:admin to join and federation:read to list', async () => {
    expect((await request(home.app).post('/api/v1/federation/join').send(joinBody)).status).toBe(401);
    expect(
      (
        await request(home.app)
          .post('/api/v1/federation/join')
          .set('Authorization', home.auth(['federation:read']))
          .send(joinBody)
      ).status,
    ).toBe(403);
    expect(
      (
        await request(home.app)
          .get('/api/v1/federation/nodes')
          .set('Authorization', home.auth(['agents:read']))
      ).status,
    ).toBe(403);
  });

  it('marks a peer that stops answering as unreachable and keeps its last mirror', async () => {
    const issuer = await new TestIssuer().start();
    const shortLived = await startMaster({ DATABASE_URL: await peerDatabaseUrl(), REDIS_URL: PEER_REDIS_URL }, issuer);
    const namespace = uniqueName('gone');
    await createAgent(shortLived, manifest({ namespace, visibility: 'public' }));
    const body = { name: uniqueName('gone'), url: `${shortLived.url}/api/v1`, jwksUrl: issuer.jwksUri, token: issuer.token({ permissions: ['agents:read'] }) };
    const joined = await request(home.app).post('/api/v1/federation/join').set('Authorization', admin()).send(body);
    expect(joined.status).toBe(201);
    await shortLived.stop();
    await issuer.stop();
    const queue = new TypedQueue(federationSyncQueue, testRedisUrl);
    try {
      await queue.add('sync', { peerId: joined.body.id });
      const node = await eventually(async () => {
        const nodes = await request(home.app)
          .get('/api/v1/federation/nodes')
          .set('Authorization', home.auth(['federation:read']));
        const found = nodes.body.items.find((item: { id: string }) => item.id === joined.body.id);
        return found?.state === 'unreachable' ? found : undefined;
      }, 20_000);
      expect(node.lastError).toEqual(expect.any(String));
    } finally {
      await queue.close();
    }
    const kept = await request(home.app)
      .get(`/api/v1/agents?origin=all&q=${namespace}`)
      .set('Authorization', home.auth(['agents:read']));
    expect(kept.body.total).toBe(1);
  });
});

describe('federation through the outbound guard', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster({ OUTBOUND_ALLOW_PRIVATE: 'false' });
  });
  afterAll(() => h.stop());

  it('refuses a peer on a loopback address unless the operator allows private networks', async () => {
    const res = await request(h.app)
      .post('/api/v1/federation/join')
      .set('Authorization', h.auth(['federation:admin']))
      .send({ name: uniqueName('loop'), url: `${h.url}/api/v1`, token: 'x'.repeat(40) });
    expect(res.status).toBe(400);
    expect(res.body.error.details.reason).toBe('blocked_address');
  });
});
