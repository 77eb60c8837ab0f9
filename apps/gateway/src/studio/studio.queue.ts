import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** Studio tasks to hand to a coding agent through the mesh. */
export const studioTaskQueue = defineQueue('gateway.studio-tasks', z.object({ taskId: z.string().uuid() }));
