import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** The scheduled retention run (a BullMQ job scheduler, one per deployment). */
export const retentionQueue = defineQueue('tracing.retention', z.object({ reason: z.enum(['schedule', 'manual']).default('schedule') }));
