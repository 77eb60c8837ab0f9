import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** One job per reprojection request. */
export const projectionQueue = defineQueue('tracing.projections', z.object({ projectionId: z.uuid(), limit: z.number().int().min(3).max(20000) }));
