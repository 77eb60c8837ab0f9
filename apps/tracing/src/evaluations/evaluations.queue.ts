import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** One job per example of an evaluation. */
export const evaluationQueue = defineQueue('tracing.evaluations', z.object({ evaluationId: z.uuid(), index: z.number().int().min(0) }));
