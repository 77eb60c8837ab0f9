import { mesh } from '@platform/contracts';
import { ApiError, conflict, type ApiRouter } from '@platform/http';
import type { z } from 'zod';
import { FencingError } from './cluster.repository';
import { NotLeaderError, type ClusterService } from './cluster.service';

const read = { permission: 'mesh:read' };
const admin = { permission: 'mesh:admin' };
const tags = ['cluster'];

export interface ClusterRouteDeps {
  cluster: ClusterService;
  status: () => Promise<z.infer<typeof mesh.ClusterStatus>>;
  nodes: () => Promise<z.infer<typeof mesh.ClusterNodes>>;
  reconcile: () => Promise<z.infer<typeof mesh.ReconcileResult>>;
  resync: () => Promise<z.infer<typeof mesh.ResyncResult>>;
}

/** A leader-only write on a follower or by a deposed leader answers 409 naming the leader. */
async function leaderOnly<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof NotLeaderError) throw conflict(error.message, { reason: 'not_leader', leader: error.leader });
    if (error instanceof FencingError)
      throw new ApiError(409, 'conflict_error', 'stale_fencing_token', error.message, { token: error.token, current: error.current });
    throw error;
  }
}

export function clusterRoutes(api: ApiRouter, deps: ClusterRouteDeps): void {
  api
    .route({
      method: 'get',
      path: '/cluster/status',
      summary: 'This node, the leader, the term and the fencing token',
      tags,
      access: read,
      responses: { 200: { description: 'Cluster status', schema: mesh.ClusterStatus } },
      handler: () => deps.status(),
    })
    .route({
      method: 'get',
      path: '/cluster/nodes',
      summary: 'Mesh nodes, alive or stale, and how many agents each owns',
      tags,
      access: read,
      responses: { 200: { description: 'Nodes', schema: mesh.ClusterNodes } },
      handler: () => deps.nodes(),
    })
    .route({
      method: 'post',
      path: '/cluster/reconcile',
      summary: 'Leader only: remove stale nodes and give their agents (and their queues) to live ones',
      tags,
      access: admin,
      responses: {
        200: { description: 'Reconciled', schema: mesh.ReconcileResult },
        409: { description: 'This node is not the leader, or its token is stale' },
      },
      handler: () => leaderOnly(deps.reconcile),
    })
    .route({
      method: 'post',
      path: '/cluster/leader/elect',
      summary: 'Force a new election (a new leader gets a higher fencing token)',
      tags,
      access: admin,
      responses: { 200: { description: 'Status after the election', schema: mesh.ClusterStatus } },
      handler: async () => {
        await deps.cluster.elect();
        return deps.status();
      },
    })
    .route({
      method: 'post',
      path: '/cluster/resync',
      summary: "Rebuild this node's in-memory state (settings, routing, owned agents, queued messages) from Postgres",
      tags,
      access: admin,
      responses: { 200: { description: 'Resynchronised', schema: mesh.ResyncResult } },
      handler: () => deps.resync(),
    });
}
