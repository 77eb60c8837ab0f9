import type { workers } from '@platform/contracts';
import type { z } from 'zod';

interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  activeTasks: number;
  taskTypes: string[];
  startedAt: Date;
  lastHeartbeatAt: Date;
  stoppedAt: Date | null;
}

export const workerView = (row: WorkerRow): z.infer<typeof workers.WorkerStatus> => ({
  id: row.id,
  host: row.host,
  pid: row.pid,
  concurrency: row.concurrency,
  active_tasks: row.activeTasks,
  task_types: row.taskTypes,
  started_at: row.startedAt.toISOString(),
  last_heartbeat: row.lastHeartbeatAt.toISOString(),
  stopped_at: row.stoppedAt?.toISOString() ?? null,
});
