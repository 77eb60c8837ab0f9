import type { Db } from '../database';

/**
 * Service-wide switches kept in Postgres, so that every API replica sees the same answer. The
 * pause belongs to one deployment: its queue (WORKERS_QUEUE).
 */
export class ControlRepository {
  private readonly pauseKey: string;

  constructor(
    private readonly db: Db,
    queue: string,
  ) {
    this.pauseKey = `paused:${queue}`;
  }

  async paused(): Promise<{ paused: boolean; changedAt: Date }> {
    const row = await this.db.setting.findUnique({ where: { key: this.pauseKey } });
    return { paused: row?.value === true, changedAt: row?.updatedAt ?? new Date(0) };
  }

  async setPaused(paused: boolean): Promise<{ paused: boolean; changedAt: Date }> {
    const row = await this.db.setting.upsert({ where: { key: this.pauseKey }, create: { key: this.pauseKey, value: paused }, update: { value: paused } });
    return { paused, changedAt: row.updatedAt };
  }

  async taskTypeTimeouts(): Promise<Map<string, number>> {
    const rows = await this.db.taskType.findMany();
    return new Map(rows.map((row) => [row.type, row.timeoutMs]));
  }

  setTaskTypeTimeout(type: string, timeoutMs: number) {
    return this.db.taskType.upsert({ where: { type }, create: { type, timeoutMs }, update: { timeoutMs } });
  }
}
