import { env } from '@platform/config';
import { ApiRouter } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { z } from 'zod';
import { AgentCaller } from './agents/agent-caller';
import { agentRoutes } from './agents/agents.router';
import { AgentsRepository } from './agents/agents.repository';
import { AgentsService } from './agents/agents.service';
import { channelsOf, MeshBus } from './bus';
import { ClusterRepository } from './cluster/cluster.repository';
import { clusterRoutes } from './cluster/cluster.router';
import { ClusterService } from './cluster/cluster.service';
import { createDatabase } from './database';
import { hardenRedis } from './redis';
import { MeshGrpcServer } from './grpc/grpc.server';
import { SubscriberHub } from './grpc/subscribers';
import { HealthRepository } from './health/health.repository';
import { healthRoutes } from './health/health.router';
import { HealthService } from './health/health.service';
import { Probes } from './health/probes';
import { DeliveryService } from './messages/delivery';
import { messageRoutes, queueRoutes } from './messages/messages.router';
import { MessagesRepository } from './messages/messages.repository';
import { MessagesService } from './messages/messages.service';
import { operationsRoutes } from './operations/operations.router';
import { NodeState } from './operations/operations.state';
import { LoadTracker } from './routing/load';
import { routingRoutes } from './routing/routing.router';
import { RoutingTable } from './routing/routing.table';
import { SettingsRepository } from './settings/settings.repository';
import { settingsRoutes } from './settings/settings.router';
import { SettingsService } from './settings/settings.service';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const BASE_PATH = '/api/v1';

export const meshService = defineService({
  name: 'mesh',
  version: '1.0.0',
  port: 3005,
  openapi: {
    title: 'Agent Mesh API',
    description:
      'Runtime directory and message bus of running agents: registration, health checks, load-aware routing, delivery with acknowledgements and dead letters, clustering. gRPC: platform.mesh.v1.Mesh and grpc.health.v1.Health on GRPC_PORT.',
  },
  config: {
    GRPC_PORT: env.port(3015),
    /** Meshes sharing one Postgres and Redis stay apart by this name (lease, settings, nodes, notices). */
    MESH_CLUSTER: z.string().regex(NAME).default('default'),
    /** This node's id (default: host name and a random suffix). */
    MESH_NODE_ID: z.string().regex(NAME).optional(),
    /** Set by the Helm chart; the node id when MESH_NODE_ID is not. */
    POD_NAME: z.string().regex(NAME).optional(),
    MESH_HEALTH_CHECK_INTERVAL_MS: env.ms(10_000),
    MESH_HEALTH_CHECK_TIMEOUT_MS: env.ms(2_000),
    MESH_EJECTION_FAILURES: env.int(3, { min: 1, max: 100 }),
    MESH_READMISSION_PASSES: env.int(2, { min: 1, max: 100 }),
    MESH_DEREGISTER_CRITICAL_AFTER_MS: env.ms(30 * 60_000),
    MESH_MAX_DELIVERY_ATTEMPTS: env.int(5, { min: 1, max: 50 }),
    MESH_RETRY_BACKOFF_MS: env.ms(500),
    MESH_ACK_TIMEOUT_MS: env.ms(30_000),
    MESH_DEDUPE_WINDOW_MS: env.ms(2 * 60_000),
    MESH_DEFAULT_TTL_MS: env.ms(24 * 3600_000),
    MESH_DELIVERY_CONCURRENCY: env.int(64, { min: 1, max: 1000 }),
    MESH_LEASE_MS: env.ms(10_000),
    MESH_NODE_HEARTBEAT_MS: env.ms(3_000),
    /** A node not seen for this long is stale (reconcile removes it). */
    MESH_NODE_STALE_MS: env.ms(15_000),
    /** A Redis command not answered within this fails (503 naming the cache); its connection is replaced. */
    MESH_REDIS_TIMEOUT_MS: env.ms(2_000),
    /** A delivery in flight on a node that died is taken back this long after its last lock renewal. */
    MESH_DELIVERY_LOCK_MS: env.ms(15_000),
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    // Silent or half-dead Redis: commands time out and dead connections are replaced (./redis.ts).
    const redis = hardenRedis(infra.redis, config.MESH_REDIS_TIMEOUT_MS);
    const nodeId =
      config.MESH_NODE_ID ??
      config.POD_NAME ??
      `${os
        .hostname()
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .slice(0, 40)}-${randomUUID().slice(0, 8)}`;
    const channels = channelsOf(config.MESH_CLUSTER);
    const state = new NodeState();
    const hub = new SubscriberHub();
    const tracker = new LoadTracker();
    const bus = new MeshBus(redis, nodeId, logger, config.MESH_REDIS_TIMEOUT_MS);
    infra.onShutdown('mesh notices', () => bus.close(), ShutdownPriority.producers);

    const agentRows = new AgentsRepository(db);
    const messageRows = new MessagesRepository(db);
    const history = new HealthRepository(db);
    const settings = new SettingsService(
      new SettingsRepository(db, `cluster:${config.MESH_CLUSTER}`),
      redis,
      {
        health_check_interval_ms: config.MESH_HEALTH_CHECK_INTERVAL_MS,
        health_check_timeout_ms: config.MESH_HEALTH_CHECK_TIMEOUT_MS,
        ejection_failures: config.MESH_EJECTION_FAILURES,
        readmission_passes: config.MESH_READMISSION_PASSES,
        deregister_critical_after_ms: config.MESH_DEREGISTER_CRITICAL_AFTER_MS,
        max_delivery_attempts: config.MESH_MAX_DELIVERY_ATTEMPTS,
        retry_backoff_ms: config.MESH_RETRY_BACKOFF_MS,
        ack_timeout_ms: config.MESH_ACK_TIMEOUT_MS,
        dedupe_window_ms: config.MESH_DEDUPE_WINDOW_MS,
        default_ttl_ms: config.MESH_DEFAULT_TTL_MS,
      },
      channels.settings,
    );
    await settings.reload();

    const routing = new RoutingTable(() => agentRows.routable(), tracker);
    const routingChanged = async () => {
      routing.invalidate();
      await bus.publish(channels.routing);
    };
    const caller = new AgentCaller(config.OUTBOUND_ALLOW_PRIVATE);
    // eslint-disable-next-line prefer-const
    let agents: AgentsService;
    const delivery = new DeliveryService({
      redisUrl: config.REDIS_URL,
      redisTimeoutMs: config.MESH_REDIS_TIMEOUT_MS,
      nodeId,
      runsWorkers: infra.role !== 'api',
      concurrency: config.MESH_DELIVERY_CONCURRENCY,
      lockMs: config.MESH_DELIVERY_LOCK_MS,
      redis,
      settings,
      messages: messageRows,
      hub,
      tracker,
      endpointOf: (agentId) => agents.endpointOf(agentId),
      announce: (agentId) => bus.publish(channels.wake, agentId),
      post: (url, body, timeoutMs) => caller.deliver(url, body, timeoutMs),
      logger,
    });
    infra.onShutdown('delivery', () => delivery.close(), ShutdownPriority.workers);

    const health = new HealthService({
      agents: agentRows,
      history,
      probes: new Probes(caller),
      settings,
      logger,
      owned: () => agentRows.ownedBy(nodeId),
      onRoutingChange: routingChanged,
      onLatency: (agentId, latencyMs) => tracker.observe(agentId, latencyMs),
      deregister: async (agentId, reason) => {
        await agents.deregister(agentId, reason);
      },
    });
    agents = new AgentsService({
      agents: agentRows,
      messages: messageRows,
      delivery,
      hub,
      tracker,
      health: () => health,
      nodeId,
      routingChanged,
      announceRemoved: (agentId) => bus.publish(channels.agentRemoved, agentId),
      announceReregister: (agentIds) => bus.publish(channels.reregister, JSON.stringify(agentIds ?? null)),
    });
    const messages = new MessagesService({
      messages: messageRows,
      agents: agentRows,
      delivery,
      routing,
      settings,
      redis,
      assertAccepting: () => state.assertAccepting(),
    });

    let httpPort = config.PORT;
    const grpc = new MeshGrpcServer({
      verifier: infra.verifier,
      agents,
      messages,
      hub,
      state,
      logger,
      // An agent subscribing here may have been left by a dead node nobody took over yet.
      onSubscribe: (agentId) => recover([agentId]).catch((error) => logger.warn({ err: error, agentId }, 'could not recover deliveries')),
    });
    const cluster = new ClusterService(
      new ClusterRepository(db, config.MESH_CLUSTER),
      redis,
      {
        cluster: config.MESH_CLUSTER,
        nodeId,
        host: os.hostname(),
        httpPort: () => httpPort,
        grpcPort: () => grpc.port,
        leaseMs: config.MESH_LEASE_MS,
        heartbeatMs: config.MESH_NODE_HEARTBEAT_MS,
      },
      logger,
    );

    const recovered = new Set<string>();
    /** Puts back what a dead node left of these agents' messages (once per agent and process). */
    const recover = async (agentIds: string[]) => {
      const fresh = agentIds.filter((id) => !recovered.has(id));
      if (fresh.length === 0) return;
      for (const id of fresh) recovered.add(id);
      const { requeued, dead } = await delivery.recover(await messageRows.pendingOf(fresh));
      if (requeued + dead > 0) logger.info({ requeued, dead }, 'recovered the deliveries a node left behind');
    };
    /** Which agents this node owns (checks, HTTP delivery), and their queues' workers. */
    const refreshOwned = async () => {
      const owned = await agentRows.idsOwnedBy(nodeId);
      delivery.setOwned(owned);
      await recover(owned);
      for (const { agentId } of await messageRows.depth(10_000)) if (owned.includes(agentId)) delivery.ensureWorker(agentId);
      return owned.length;
    };

    await bus.on(channels.routing, () => routing.invalidate());
    await bus.on(channels.agentRemoved, (agentId) => {
      messages.forgetAgent(agentId);
      void agents.forget(agentId);
    });
    await bus.on(channels.reregister, (data) => void agents.notifyReregister((JSON.parse(data || 'null') as string[] | null) ?? undefined));
    await bus.on(channels.settings, () => void settings.reload());
    await bus.on(channels.wake, (agentId) => delivery.wake(agentId));
    await bus.on(channels.ownership, () => void refreshOwned());

    // gRPC health follows Postgres, Redis and draining.
    const dependenciesUp = async () => {
      try {
        await Promise.race([
          Promise.all([db.$queryRawUnsafe('SELECT 1'), redis.ping()]),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
        ]);
        return true;
      } catch {
        return false;
      }
    };
    const watchHealth = setInterval(() => void dependenciesUp().then((up) => grpc.setServing(up && !state.draining)), 1000);
    watchHealth.unref();
    infra.onShutdown('grpc health watch', () => clearInterval(watchHealth), ShutdownPriority.intake);

    await grpc.listen(config.HOST, config.GRPC_PORT);
    infra.onShutdown('grpc server', () => grpc.close(), ShutdownPriority.intake);
    await refreshOwned();
    await cluster.start();
    infra.onShutdown('cluster membership', () => cluster.stop(), ShutdownPriority.components);

    // The leader takes over the agents of this cluster's dead nodes by itself (a node killed
    // without a goodbye): their checks, HTTP deliveries and the messages they left.
    const clusterNodes = new ClusterRepository(db, config.MESH_CLUSTER);
    const takeOverDeadNodes = async () => {
      const before = new Date(Date.now() - config.MESH_NODE_STALE_MS);
      if (!cluster.isLeader || !(await clusterNodes.hasStale(before))) return;
      const { result } = await cluster.asLeader((writes) => writes.reconcile(before, { strays: false }));
      logger.info({ removed: result.removed, reassigned: result.reassigned }, 'took over the agents of dead nodes');
      await refreshOwned();
      await bus.publish(channels.ownership);
    };
    let takingOver: Promise<void> | undefined;
    const takeOver = setInterval(() => {
      // One take-over at a time: a slow one is not started again beside itself.
      takingOver ??= takeOverDeadNodes()
        .catch((error) => logger.warn({ err: error }, 'could not take over dead nodes'))
        .finally(() => (takingOver = undefined));
    }, config.MESH_NODE_HEARTBEAT_MS);
    takeOver.unref();
    infra.onShutdown('dead node take-over', () => clearInterval(takeOver), ShutdownPriority.intake);
    if (infra.role !== 'api') {
      health.start();
      infra.onShutdown('health checks', () => health.stop(), ShutdownPriority.intake);
    }

    const serviceHealth = async () => {
      const [up, leader] = await Promise.all([dependenciesUp(), cluster.leader().catch(() => ({ leader: null }))]);
      const healthy = up && !state.draining;
      return {
        status: healthy ? 200 : 503,
        body: {
          status: healthy ? 'healthy' : 'unhealthy',
          version: infra.version,
          uptime: Math.floor(process.uptime()),
          dependencies: { database: up ? 'up' : 'down', cache: up ? 'up' : 'down' },
          node_id: nodeId,
          leader: leader.leader,
          draining: state.draining,
          grpc: { port: grpc.port, status: grpc.status },
        },
      };
    };
    const clusterStatus = async () => {
      const [leader, term, nodes] = await Promise.all([cluster.leader(), cluster.term(), new ClusterRepository(db, config.MESH_CLUSTER).nodes()]);
      return {
        node_id: nodeId,
        leader: leader.leader,
        is_leader: cluster.isLeader && leader.leader === nodeId,
        term,
        fencing_token: leader.token,
        lease_expires_in_ms: leader.expiresInMs,
        nodes: nodes.length,
      };
    };

    const api = new ApiRouter(await infra.verifier());
    agentRoutes(api, agents, () => state.assertAccepting());
    healthRoutes(api, {
      agents,
      agentRows,
      history,
      serviceHealth,
      reset: async () => {
        const reset = await agentRows.resetHealth();
        await routingChanged();
        return reset;
      },
    });
    routingRoutes(api, {
      table: routing,
      invalidateEverywhere: routingChanged,
      discovery: async (scope) => {
        const [counts, snapshot, leader] = await Promise.all([agentRows.counts(scope), routing.current(), cluster.leader()]);
        return {
          node_id: nodeId,
          leader: leader.leader,
          agents: counts,
          capabilities: snapshot.capabilities.size,
          routing: { version: snapshot.version, built_at: snapshot.builtAt?.toISOString() ?? null, hits: routing.hits, rebuilds: routing.rebuilds },
          health_checks: { health_check_interval_ms: settings.value.health_check_interval_ms, health_check_timeout_ms: settings.value.health_check_timeout_ms },
          subscribers: hub.all().length,
        };
      },
    });
    messageRoutes(api, messages);
    queueRoutes(api, messages, () => tracker.totalOutstanding());
    settingsRoutes(api, settings);
    clusterRoutes(api, {
      cluster,
      status: clusterStatus,
      nodes: async () => {
        const repository = new ClusterRepository(db, config.MESH_CLUSTER);
        const [rows, leader, byNode] = await Promise.all([repository.nodes(), cluster.leader(), agentRows.countByNode()]);
        const staleBefore = Date.now() - config.MESH_NODE_STALE_MS;
        return {
          nodes: rows.map((row) => ({
            id: row.id,
            host: row.host,
            http_port: row.httpPort,
            grpc_port: row.grpcPort,
            started_at: row.startedAt.toISOString(),
            last_seen_at: row.lastSeenAt.toISOString(),
            alive: row.lastSeenAt.getTime() >= staleBefore,
            leader: row.id === leader.leader,
            agents: byNode.get(row.id) ?? 0,
          })),
        };
      },
      reconcile: async () => {
        const { token, result } = await cluster.asLeader((writes) => writes.reconcile(new Date(Date.now() - config.MESH_NODE_STALE_MS)));
        await refreshOwned();
        await bus.publish(channels.ownership);
        return { fencing_token: token, removed_nodes: result.removed, reassigned_agents: result.reassigned };
      },
      resync: async () => {
        await settings.reload();
        const snapshot = await routing.rebuild();
        recovered.clear();
        const owned = await refreshOwned();
        // Only what has no job (or a failed one): a message still queued in BullMQ is not sent twice.
        await recover(hub.agents());
        return { agents: owned, routing_version: snapshot.version, workers: delivery.workerCount };
      },
    });
    operationsRoutes(api, {
      state,
      hub,
      drain: async () => {
        const inFlight = tracker.totalOutstanding();
        state.startDraining();
        grpc.setServing(false);
        await delivery.pause();
        const streams = hub.closeAll('draining');
        return { draining: true as const, in_flight: inFlight, grpc_streams: streams };
      },
    });

    // GET /health is the bootstrap's; documented here so the OpenAPI document lists every spec row.
    const root = new ApiRouter();
    root.document({
      method: 'get',
      path: '/health',
      summary: 'Service health (Postgres, Redis)',
      tags: ['health'],
      access: 'public',
      responses: { 200: { description: 'Healthy' }, 503: { description: 'A dependency is down' } },
    });

    return {
      routers: [
        { basePath: '', router: root },
        { basePath: BASE_PATH, router: api },
      ],
      beforeBody: [state.intakeGuard(BASE_PATH)],
      health: {
        checks: {
          intake: async () => {
            if (state.draining) throw new Error('draining');
          },
        },
        extra: async () => ({ node_id: nodeId, draining: state.draining, grpc: { port: grpc.port, status: grpc.status } }),
      },
      onListening: (server) => {
        state.track(server);
        const address = server.address();
        if (address && typeof address === 'object') httpPort = address.port;
      },
    };
  },
});
