import type { QueueRegistry } from '@platform/service-kit';
import { type Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import path from 'node:path';
import { CapabilityRepository } from './capabilities/capabilities.repository';
import { CapabilityService } from './capabilities/capabilities.service';
import { CmsSyncService } from './cms/cms.service';
import { ConnectionRepository } from './connections/connections.repository';
import { ConnectionService } from './connections/connections.service';
import type { Db } from './database';
import { DiscoveryRepository } from './discovery/discovery.repository';
import { DiscoveryService } from './discovery/discovery.service';
import { EventBus } from './events/event-bus';
import { CheckScheduler } from './operations/check-scheduler';
import { HealthCheckRepository } from './health-checks/health-checks.repository';
import { HealthCheckService } from './health-checks/health-checks.service';
import { LiveLoad } from './supervisor/live-load';
import { LoadDistributionRepository } from './load-balancing/load-balancing.repository';
import { LoadDistributionService } from './load-balancing/load-balancing.service';
import { RegistryRepository } from './registry/registry.repository';
import { RegistryService } from './registry/registry.service';
import { RegistryInstance } from './supervisor/instance';
import { ProcessRecords } from './supervisor/process-records';
import { ProcessRecordsRepository } from './supervisor/process-records.repository';
import type { McpRegistryConfig } from './service';
import { defaultSearchPath, defaultWorkRoot, type StdioPolicy } from './supervisor/stdio-launch';
import { Supervisor } from './supervisor/supervisor';
import { LocalOperations, type McpOperations } from './operations/mcp-operations';
import { OperationsQueue } from './operations/operations-queue';
import { ToolCallService } from './tool-calls/tool-calls.service';

export const SERVICE = 'mcp-registry';
const REAP_INTERVAL_MS = 60_000;
/** Forwarded operations a worker runs at once (tool calls may wait on slow tools). */
const ON_DEMAND_CONCURRENCY = 64;

/**
 * Everything the registry is made of, wired once: stores, the supervisor of MCP sessions, the
 * services the routers call, and the queue that runs scheduled checks.
 */
export function createRegistryContext(config: McpRegistryConfig, logger: Logger, db: Db, redis: Redis, queues: QueueRegistry) {
  const prefix = config.MCP_REDIS_PREFIX;
  const instance = new RegistryInstance(redis, prefix);
  const stdioPolicy: StdioPolicy = {
    allowedCommands: config.MCP_STDIO_ALLOWED_COMMANDS,
    searchPath: defaultSearchPath(config.MCP_STDIO_PATH),
    memoryMb: config.MCP_STDIO_MEMORY_MB,
    cpuSeconds: config.MCP_STDIO_CPU_SECONDS,
    workRoot: path.resolve(config.MCP_STDIO_WORK_ROOT ?? defaultWorkRoot()),
  };
  const records = new ProcessRecords(new ProcessRecordsRepository(db), instance, stdioPolicy.workRoot, logger);
  const supervisor = new Supervisor(
    { stdio: stdioPolicy, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE },
    records,
    logger,
    config.MCP_SESSION_IDLE_SECONDS * 1000,
  );
  const events = new EventBus(redis, `${prefix}:events`, logger);
  const liveLoad = new LiveLoad(redis, prefix, instance);
  const scheduler = new CheckScheduler(config.MCP_HEALTH_QUEUE, queues, redis, prefix, logger);
  const connections = new ConnectionService({
    repository: new ConnectionRepository(db),
    scheduler,
    supervisor,
    events,
    liveLoad,
    stdioPolicy,
    defaultCapacity: config.MCP_DEFAULT_CAPACITY,
    allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
  });
  const healthChecks = new HealthCheckService({
    repository: new HealthCheckRepository(db),
    connections,
    supervisor,
    events,
    liveLoad,
    degradedThreshold: config.MCP_DEGRADED_THRESHOLD,
    logger,
  });
  const toolCalls = new ToolCallService({ connections, supervisor, events, liveLoad });
  const discovery = new DiscoveryService({ repository: new DiscoveryRepository(db), liveLoad });
  const capabilities = new CapabilityService(new CapabilityRepository(db), connections);
  const registry = new RegistryService({ repository: new RegistryRepository(db), connections });
  const loadDistribution = new LoadDistributionService({ repository: new LoadDistributionRepository(db), connections, liveLoad });
  const cms = new CmsSyncService({ connections, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  const runsWorker = config.SERVICE_ROLE !== 'api';
  const local = new LocalOperations(healthChecks, toolCalls, config.MCP_CHECK_CONCURRENCY);
  const operationsQueue = new OperationsQueue(`${config.MCP_HEALTH_QUEUE}.on-demand`, queues, config.REDIS_URL, logger);
  /** On-demand checks and tool calls: in process, except in the `api` role (forwarded to workers). */
  const operations: McpOperations = runsWorker ? local : operationsQueue;

  // A connection disconnected on any replica ends its session and process here too.
  events.on((event) => {
    if (event.type === 'connection-status' && event.status === 'disconnected') {
      supervisor.stop(event.connectionId).catch((error: unknown) => logger.warn({ err: error, connectionId: event.connectionId }, 'stopping a session failed'));
    }
  });

  let reaper: NodeJS.Timeout | undefined;
  const reap = () =>
    records.reapOrphans().then(
      (reaped) => reaped > 0 && logger.warn({ reaped }, 'reaped stdio servers of a registry that is gone'),
      (error: unknown) => logger.warn({ err: error }, 'reaping orphaned stdio servers failed'),
    );

  async function start(): Promise<void> {
    await instance.start();
    await events.start();
    await reap();
    // Again later: a registry restarted within the heartbeat TTL sees its predecessor as alive.
    reaper = setInterval(() => void reap(), REAP_INTERVAL_MS);
    reaper.unref();
    if (!runsWorker) return operationsQueue.startClient();
    operationsQueue.startWorker(local, ON_DEMAND_CONCURRENCY);
    scheduler.startWorker(async (connectionId) => {
      const row = await connections.find(connectionId);
      if (!row || row.status === 'disconnected' || !row.healthCheckEnabled) return scheduler.unschedule(connectionId);
      const result = await healthChecks.checkRow(row);
      return { status: result.health.status, responseTime: result.health.responseTime };
    }, config.MCP_CHECK_CONCURRENCY);
    if (config.MCP_RECONCILE_SCHEDULES) {
      for (const row of await connections.scheduled()) await scheduler.sync(row);
    }
  }

  /**
   * Ends every session and process. The bootstrap has stopped the queue workers before and closes
   * the producers, Postgres and Redis after.
   */
  async function stop(): Promise<void> {
    if (reaper) clearInterval(reaper);
    await operationsQueue.close().catch((error: unknown) => logger.warn({ err: error }, 'closing the operations queue failed'));
    await supervisor.stopAll();
    await events.stop();
    await instance.stop();
  }

  return {
    config,
    logger,
    redis,
    instance,
    supervisor,
    records,
    events,
    liveLoad,
    scheduler,
    stdioPolicy,
    operations,
    services: { connections, healthChecks, toolCalls, discovery, capabilities, registry, loadDistribution, cms },
    start,
    stop,
  };
}

export type RegistryContext = ReturnType<typeof createRegistryContext>;
