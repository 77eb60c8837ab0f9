import { defineQueue } from '@platform/queues';
import { z } from 'zod';

/** One job per certification request; the job id is the certification id (idempotent adds). */
export const certificationQueue = defineQueue('registry.certifications', z.object({ certificationId: z.string().uuid() }));
export type CertificationQueue = typeof certificationQueue;
