import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** One job per execution; its id is the execution id, so enqueueing twice is harmless. */
export const executionQueue = defineQueue('workflow-engine.executions', z.object({ executionId: z.string().uuid() }));

/** One job per batch: it runs the batch's items, `concurrency` at a time. */
export const batchQueue = defineQueue('workflow-engine.batches', z.object({ batchId: z.string().uuid() }));

/** Signed callbacks, retried with backoff by BullMQ. */
export const webhookQueue = defineQueue(
  'workflow-engine.webhooks',
  z.object({ workflowId: z.string().uuid(), url: z.string().url(), messageId: z.string(), type: z.string(), body: z.record(z.string(), z.unknown()) }),
);
