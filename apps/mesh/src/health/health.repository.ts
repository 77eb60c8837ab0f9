import type { Db } from '../database';
import type { HealthCheck } from '../generated/prisma/client';

export type HealthCheckRow = HealthCheck;

/** The history of health checks per agent. */
export class HealthRepository {
  constructor(private readonly db: Db) {}

  async record(agentId: string, check: { kind: string; status: string; latencyMs: number | null; output: string | null }): Promise<void> {
    await this.db.healthCheck.create({ data: { agentId, ...check } }).catch((error: { code?: string }) => {
      // The agent was deregistered meanwhile: its history went with it.
      if (error?.code !== 'P2003') throw error;
    });
  }

  history(agentId: string, limit: number, offset: number): Promise<HealthCheckRow[]> {
    return this.db.healthCheck.findMany({ where: { agentId }, orderBy: [{ checkedAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset });
  }

  count(agentId: string): Promise<number> {
    return this.db.healthCheck.count({ where: { agentId } });
  }

  /** Keeps the recent history only. */
  async prune(before: Date): Promise<number> {
    const { count } = await this.db.healthCheck.deleteMany({ where: { checkedAt: { lt: before } } });
    return count;
  }
}
