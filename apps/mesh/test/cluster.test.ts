import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { ClusterRepository, FencingError } from '../src/cluster/cluster.repository';
import { bearer, startMesh, stopIssuer, type MeshInstance } from './harness';

const fast = { MESH_LEASE_MS: '1000', MESH_NODE_HEARTBEAT_MS: '200', MESH_NODE_STALE_MS: '2000' };

describe('a cluster of mesh nodes', () => {
  let a: MeshInstance;
  let b: MeshInstance | undefined;
  let read: string;
  let admin: string;
  beforeAll(async () => {
    const cluster = uniqueName('cluster');
    a = await startMesh({ ...fast, MESH_CLUSTER: cluster, MESH_NODE_ID: `${cluster}-a` });
    b = await startMesh({ ...fast, MESH_CLUSTER: cluster, MESH_NODE_ID: `${cluster}-b` });
    [read, admin] = await Promise.all([bearer(['mesh:read']), bearer(['mesh:admin'])]);
  });
  afterAll(async () => {
    await b?.stop();
    await a.stop();
    await stopIssuer();
  });

  const status = async (node: MeshInstance) => (await request(node.app).get('/api/v1/cluster/status').set('Authorization', read)).body;

  it('elects one leader; a new one after the leader dies has a higher fencing token and the old token is refused', async () => {
    const [sa, sb] = await eventually(async () => {
      const both = [await status(a), await status(b!)];
      return both[0].leader && both[0].leader === both[1].leader && both;
    });
    expect([sa.is_leader, sb.is_leader].filter(Boolean)).toHaveLength(1);
    expect(sa.fencing_token).toBe(sb.fencing_token);
    expect(sa.nodes).toBe(2);
    const nodes = await request(a.app).get('/api/v1/cluster/nodes').set('Authorization', read);
    expect(nodes.body.nodes.map((n: { id: string; alive: boolean }) => [n.id, n.alive]).sort()).toEqual([
      [`${a.cluster}-a`, true],
      [`${a.cluster}-b`, true],
    ]);

    const [leader, follower] = sa.is_leader ? [a, b!] : [b!, a];
    const refused = await request(follower.app).post('/api/v1/cluster/reconcile').set('Authorization', admin);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual({ reason: 'not_leader', leader: sa.leader });
    const reconciled = await request(leader.app).post('/api/v1/cluster/reconcile').set('Authorization', admin);
    expect(reconciled.status).toBe(200);
    expect(reconciled.body.fencing_token).toBe(sa.fencing_token);

    const oldToken = sa.fencing_token as number;
    const oldLeaderId = sa.leader as string;
    // The leader dies; the follower is the one node left (and the one afterAll stops).
    await leader.stop();
    const survivor = follower;
    a = survivor;
    b = undefined;
    const next = await eventually(async () => {
      const s = await status(survivor);
      return s.is_leader && s;
    });
    expect(next.leader).not.toBe(oldLeaderId);
    expect(next.fencing_token).toBeGreaterThan(oldToken);
    expect(next.term).toBeGreaterThanOrEqual(next.fencing_token);
    // The new leader writes with its token; the deposed leader's late write is refused and changes nothing.
    expect((await request(survivor.app).post('/api/v1/cluster/reconcile').set('Authorization', admin)).status).toBe(200);
    const repository = new ClusterRepository(survivor.infra.db, survivor.cluster);
    const marker = uniqueName('late-write');
    await expect(repository.fenced(oldToken, oldLeaderId, (writes) => writes.mark(marker, { from: oldLeaderId }))).rejects.toBeInstanceOf(FencingError);
    expect(await survivor.infra.db.setting.findUnique({ where: { key: marker } })).toBeNull();
    expect(await repository.currentFence()).toBe(next.fencing_token);
  });

  it("forces an election, takes over a dead node's agents by itself, reconciles stray agents, and resyncs from Postgres", async () => {
    const node = a;
    const before = await status(node);
    const elected = await request(node.app).post('/api/v1/cluster/leader/elect').set('Authorization', admin);
    expect(elected.status).toBe(200);
    expect(elected.body.is_leader).toBe(true);
    expect(elected.body.fencing_token).toBeGreaterThan(before.fencing_token ?? 0);
    const liveId = (await status(node)).node_id;

    // A node of this cluster that died without a goodbye: the leader takes its agents over on its own.
    const staleNode = uniqueName('gone');
    const agentId = uniqueName('orphan');
    await node.infra.db.clusterNode.create({
      data: { id: staleNode, cluster: node.cluster, host: 'gone', httpPort: 1, grpcPort: 2, lastSeenAt: new Date(Date.now() - 60_000) },
    });
    await node.infra.db.agent.create({ data: { id: agentId, name: 'orphan', namespace: 'default', capabilities: [], nodeId: staleNode } });
    await eventually(async () => (await node.infra.db.agent.findUnique({ where: { id: agentId } }))?.nodeId === liveId);
    const listed = await request(node.app).get('/api/v1/cluster/nodes').set('Authorization', read);
    expect(listed.body.nodes.map((n: { id: string }) => n.id)).not.toContain(staleNode);

    // An agent whose node left no trace is an operator's call: POST /cluster/reconcile takes it over.
    const stray = uniqueName('stray');
    await node.infra.db.agent.create({ data: { id: stray, name: 'stray', namespace: 'default', capabilities: [], nodeId: uniqueName('nowhere') } });
    const reconciled = await request(node.app).post('/api/v1/cluster/reconcile').set('Authorization', admin);
    expect(reconciled.status).toBe(200);
    expect(reconciled.body.reassigned_agents).toBeGreaterThanOrEqual(1);
    expect((await node.infra.db.agent.findUnique({ where: { id: stray } }))?.nodeId).toBe(liveId);

    const resync = await request(node.app).post('/api/v1/cluster/resync').set('Authorization', admin);
    expect(resync.status).toBe(200);
    expect(resync.body.agents).toBeGreaterThanOrEqual(1);
    for (const id of [agentId, stray]) await request(node.app).delete(`/api/v1/agents/${id}`).set('Authorization', admin);
  });
});
