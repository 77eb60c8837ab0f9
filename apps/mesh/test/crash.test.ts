import * as grpc from '@grpc/grpc-js';
import { eventually, spawnService, TestIssuer, uniqueName, type ServiceProcess } from '@platform/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, meshClient, subscribe, type MeshClient } from './harness';

/** An HTTP agent that records every delivery as it arrives and answers only once told to. */
class HoldingAgent {
  readonly arrivals: string[] = [];
  hold = true;
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      this.arrivals.push((JSON.parse(body) as { id: string }).id);
      if (!this.hold) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/inbox`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const count = (ids: string[], id: string) => ids.filter((each) => each === id).length;

/**
 * Issue 27: deliveries in flight when a mesh node is killed (SIGKILL) stayed queued with 0 attempts;
 * only an admin resync delivered them, twice each. Now a restarted node delivers them on its own,
 * once each, and Postgres says how many attempts it took.
 */
describe('deliveries in flight when a mesh node is killed', () => {
  let issuer: TestIssuer;
  let first: ServiceProcess | undefined;
  let second: ServiceProcess | undefined;
  let agent: HoldingAgent;
  const clients: MeshClient[] = [];
  const user = uniqueName('crash-user');
  let auth: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    agent = await new HoldingAgent().start();
    auth = issuer.bearer(['mesh:read', 'mesh:write'], { sub: user });
    env = {
      AUTH_URL: new URL(issuer.jwksUri).origin,
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: issuer.audience,
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      MESH_CLUSTER: uniqueName('crash'),
      OUTBOUND_ALLOW_PRIVATE: 'true',
      MESH_RETRY_BACKOFF_MS: '50',
      MESH_ACK_TIMEOUT_MS: '120000',
      MESH_DELIVERY_LOCK_MS: '2000',
      MESH_LEASE_MS: '1000',
      MESH_NODE_HEARTBEAT_MS: '300',
      MESH_NODE_STALE_MS: '2000',
    };
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await second?.stop();
    await first?.kill();
    await agent.stop();
    await issuer.stop();
  });

  const api = async (node: ServiceProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${node.url}/api/v1${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const grpcOf = async (node: ServiceProcess) => {
    const health = (await (await fetch(`${node.url}/health`)).json()) as { grpc: { port: number } };
    const client = meshClient(health.grpc.port);
    clients.push(client);
    return client;
  };
  const md = () => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', auth);
    return metadata;
  };

  it('are delivered again on their own after a restart, once each, with truthful attempts', async () => {
    first = await spawnService('mesh', { env, timeoutMs: 90_000 });
    const streamed = uniqueName('grpc-agent');
    const posted = uniqueName('http-agent');
    expect((await api(first, 'POST', '/agents', { id: streamed, name: 'streamed' })).status).toBe(201);
    expect((await api(first, 'POST', '/agents', { id: posted, name: 'posted', endpoint: agent.url })).status).toBe(201);

    // Four messages to each: in flight on the first node (written to the stream, POSTed), none answered.
    const before = subscribe(await grpcOf(first), streamed, md());
    const ids = { streamed: [] as string[], posted: [] as string[] };
    for (let i = 0; i < 4; i++) {
      for (const [key, to] of [
        ['streamed', streamed],
        ['posted', posted],
      ] as const) {
        const sent = await api(first, 'POST', '/messages', { to, payload: { i } });
        expect(sent.status).toBe(202);
        ids[key].push(sent.body.id as string);
      }
    }
    await eventually(() => ids.streamed.every((id) => before.received.some((d) => d.id === id)), 30_000);
    await eventually(() => ids.posted.every((id) => agent.arrivals.includes(id)), 30_000);

    await first.kill();
    const arrivedBefore = agent.arrivals.length;
    agent.hold = false;

    // A new node (another node id, as a restarted pod): nobody calls resync.
    second = await spawnService('mesh', { env, timeoutMs: 90_000 });
    const client = await grpcOf(second);
    const after = subscribe(client, streamed, md());
    after.stream.on('data', (d: { id: string; control: string }) => {
      if (!d.control) void call(client, 'Ack', { agent_id: streamed, id: d.id, ok: true }, md()).catch(() => undefined);
    });

    const states = async (agentId: string) =>
      ((await api(second!, 'GET', `/messages?agent_id=${agentId}&limit=500`)).body.messages as Array<{ id: string; state: string; attempts: number }>).map(
        (m) => [m.id, m.state, m.attempts],
      );
    const allAcked = (agentId: string, list: string[]) => async () => {
      const rows = await states(agentId);
      return rows.length === list.length && rows.every(([, state]) => state === 'acked') && rows;
    };
    const streamedRows = await eventually(allAcked(streamed, ids.streamed), 60_000, 250);
    const postedRows = await eventually(allAcked(posted, ids.posted), 60_000, 250);
    // Delivered once before the kill and once after: two attempts each, never "acked" with 0.
    expect(streamedRows.map(([, , attempts]) => attempts)).toEqual([2, 2, 2, 2]);
    expect(postedRows.map(([, , attempts]) => attempts)).toEqual([2, 2, 2, 2]);

    // Once each after the restart, and nothing more a moment later.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const redelivered = after.received.filter((d) => !d.control).map((d) => d.id);
    expect(ids.streamed.map((id) => count(redelivered, id))).toEqual([1, 1, 1, 1]);
    expect(ids.posted.map((id) => count(agent.arrivals.slice(arrivedBefore), id))).toEqual([1, 1, 1, 1]);
    expect(after.received.filter((d) => !d.control).map((d) => d.attempt)).toEqual([2, 2, 2, 2]);
    after.stream.cancel();
  }, 240_000);
});
