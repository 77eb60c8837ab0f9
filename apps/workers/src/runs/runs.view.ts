import type { workers } from '@platform/contracts';
import type { z } from 'zod';

interface RunRow {
  id: string;
  name: string;
  version: number;
  state: string;
  error: string | null;
  blockedSteps: string[];
  traceId: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  owner: string | null;
  team: string | null;
}

export const runView = (run: RunRow): z.infer<typeof workers.RunSummary> => ({
  workflow_id: run.id,
  name: run.name,
  version: run.version,
  state: run.state as z.infer<typeof workers.RunState>,
  error: run.error,
  blocked_steps: run.blockedSteps,
  trace_id: run.traceId,
  created_at: run.createdAt.toISOString(),
  started_at: run.startedAt?.toISOString() ?? null,
  finished_at: run.finishedAt?.toISOString() ?? null,
  owner: run.owner,
  team: run.team,
});
