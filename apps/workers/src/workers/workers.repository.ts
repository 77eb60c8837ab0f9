import type { Db } from '../database';

export interface WorkerIdentity {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  taskTypes: string[];
}

/** Worker processes and their heartbeats. */
export class WorkersRepository {
  constructor(private readonly db: Db) {}

  register(worker: WorkerIdentity) {
    return this.db.worker.upsert({
      where: { id: worker.id },
      create: { ...worker },
      update: { ...worker, lastHeartbeatAt: new Date(), stoppedAt: null },
    });
  }

  heartbeat(id: string, activeTasks: number) {
    return this.db.worker.updateMany({ where: { id, stoppedAt: null }, data: { lastHeartbeatAt: new Date(), activeTasks } });
  }

  stopped(id: string) {
    return this.db.worker.updateMany({ where: { id }, data: { stoppedAt: new Date(), activeTasks: 0 } });
  }

  /** Live workers: not stopped, heartbeat within `deadAfterMs`. */
  async live(deadAfterMs: number, limit: number, offset: number) {
    const where = { stoppedAt: null, lastHeartbeatAt: { gte: new Date(Date.now() - deadAfterMs) } };
    const [rows, total] = await Promise.all([
      this.db.worker.findMany({ where, orderBy: { startedAt: 'asc' }, take: limit, skip: offset }),
      this.db.worker.count({ where }),
    ]);
    return { rows, total };
  }

  /** Dead workers: not stopped cleanly, and silent for longer than `deadAfterMs`. */
  async dead(deadAfterMs: number, limit: number, offset: number) {
    const where = { stoppedAt: null, lastHeartbeatAt: { lt: new Date(Date.now() - deadAfterMs) } };
    const [rows, total] = await Promise.all([
      this.db.worker.findMany({ where, orderBy: { lastHeartbeatAt: 'desc' }, take: limit, skip: offset }),
      this.db.worker.count({ where }),
    ]);
    return { rows, total };
  }

  /** Forgets workers that stopped or died more than `olderThanMs` ago. */
  prune(olderThanMs: number) {
    return this.db.worker.deleteMany({ where: { lastHeartbeatAt: { lt: new Date(Date.now() - olderThanMs) } } });
  }
}
