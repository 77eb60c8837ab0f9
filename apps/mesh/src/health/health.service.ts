import type { Logger } from '@platform/telemetry';
import type { AgentRow, AgentsRepository } from '../agents/agents.repository';
import type { SettingsService } from '../settings/settings.service';
import type { HealthRepository } from './health.repository';
import type { ProbeResult, Probes } from './probes';

export interface HealthChange {
  agentId: string;
  /** Whether the agent's place in the routing table changed (ejected or readmitted). */
  routingChanged: boolean;
}

export interface HealthServiceDeps {
  agents: AgentsRepository;
  history: HealthRepository;
  probes: Probes;
  settings: SettingsService;
  logger: Logger;
  /** The agents this node checks. */
  owned: () => Promise<AgentRow[]>;
  /** A health change that moves an agent in or out of routing. */
  onRoutingChange: (agentId: string) => void | Promise<void>;
  /** Feeds check latency into the load tracker. */
  onLatency: (agentId: string, latencyMs: number) => void;
  /** Deregisters an agent critical for too long. */
  deregister: (agentId: string, reason: string) => Promise<void>;
}

const HISTORY_KEPT_MS = 24 * 3600_000;

/**
 * Runs each owned agent's check every `health_check_interval_ms` (with `health_check_timeout_ms`),
 * and applies every result (checks, heartbeats, self-reports) the same way: N failures in a row
 * eject the agent from routing, M passes in a row readmit it, and one critical for longer than
 * `deregister_critical_after_ms` is deregistered.
 */
export class HealthService {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;
  private lastPrune = 0;

  constructor(private readonly deps: HealthServiceDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule();
    this.deps.settings.onChange(() => this.reschedule());
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.deps.settings.value.health_check_interval_ms);
    this.timer.unref();
  }

  private reschedule(): void {
    if (this.running || this.stopped) return;
    clearTimeout(this.timer);
    this.schedule();
  }

  /** One round of checks over the agents this node owns. */
  async round(): Promise<number> {
    let agents: AgentRow[];
    try {
      agents = await this.deps.owned();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'health round skipped: agents unavailable');
      return 0;
    }
    const { health_check_timeout_ms: timeoutMs } = this.deps.settings.value;
    const now = Date.now();
    for (let i = 0; i < agents.length && !this.stopped; i += 32) {
      await Promise.all(
        agents
          .slice(i, i + 32)
          .map(async (agent) =>
            this.apply(agent, await this.deps.probes.run(agent, timeoutMs, now)).catch((error) =>
              this.deps.logger.warn({ err: error, agentId: agent.id }, 'health check not recorded'),
            ),
          ),
      );
    }
    if (now - this.lastPrune > 60_000) {
      this.lastPrune = now;
      await this.deps.history.prune(new Date(now - HISTORY_KEPT_MS)).catch(() => undefined);
    }
    return agents.length;
  }

  /** Applies one result to an agent: history, counters, ejection, readmission, deregistration. */
  async apply(agent: AgentRow, result: ProbeResult, extra: { heartbeat?: Date } = {}): Promise<AgentRow | null> {
    const settings = this.deps.settings.value;
    const now = new Date();
    const failed = result.status === 'critical';
    const failures = failed ? agent.consecutiveFailures + 1 : 0;
    const passes = failed ? 0 : agent.consecutivePasses + 1;
    let ejected = agent.ejected;
    if (failed && failures >= settings.ejection_failures) ejected = true;
    if (!failed && agent.ejected && passes >= settings.readmission_passes) ejected = false;
    const criticalSince = failed ? (agent.criticalSince ?? now) : null;
    await this.deps.history.record(agent.id, { kind: result.kind, status: result.status, latencyMs: result.latencyMs, output: result.output });
    const updated = await this.deps.agents.updateHealth(agent.id, {
      status: result.status,
      ejected,
      consecutiveFailures: failures,
      consecutivePasses: passes,
      criticalSince,
      lastCheckAt: now,
      ...(result.latencyMs !== null && { latencyMs: result.latencyMs }),
      ...(extra.heartbeat && { lastHeartbeatAt: extra.heartbeat }),
    });
    if (!updated) return null;
    if (result.latencyMs !== null) this.deps.onLatency(agent.id, result.latencyMs);
    if (ejected !== agent.ejected) {
      this.deps.logger.info({ agentId: agent.id, ejected, failures, passes }, ejected ? 'agent ejected from routing' : 'agent readmitted to routing');
      await this.deps.onRoutingChange(agent.id);
    }
    if (criticalSince && now.getTime() - criticalSince.getTime() > settings.deregister_critical_after_ms) {
      this.deps.logger.info({ agentId: agent.id, criticalSince }, 'agent deregistered after being critical too long');
      await this.deps.deregister(agent.id, 'critical_too_long');
      return null;
    }
    return updated;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.deps.probes.close();
  }
}
