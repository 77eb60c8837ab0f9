import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** Scheduled mirroring of unfinished executions from workers (needs MASTER_API_KEY). */
export const executionSyncQueue = defineQueue('master.execution-sync', z.object({}));
