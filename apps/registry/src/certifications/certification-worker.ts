import { createWorker, defaultJobOptions } from '@platform/queues';
import { type Logger } from '@platform/telemetry';
import type { Worker } from 'bullmq';
import { certificationQueue } from './certification-queue';
import type { CertificationsService } from './certifications.service';

/**
 * The processor of `registry.certifications`. A job that fails is retried with backoff; once its
 * attempts are spent the certification is recorded as `error` and the job stays in the failed
 * (dead-letter) list for an operator to retry.
 */
export function startCertificationWorker(options: { redisUrl: string; service: CertificationsService; logger: Logger; concurrency: number; autorun?: boolean }): Worker {
  const worker = createWorker(certificationQueue, options.redisUrl, (payload) => options.service.process(payload.certificationId), {
    concurrency: options.concurrency,
    autorun: options.autorun,
  });
  const attempts = defaultJobOptions.attempts ?? 1;
  worker.on('failed', (job, error) => {
    options.logger.warn({ err: error, jobId: job?.id, attempt: job?.attemptsMade }, 'certification job failed');
    if (job && (job.attemptsMade >= (job.opts.attempts ?? attempts) || error.name === 'UnrecoverableError')) {
      const id = (job.data as { payload?: { certificationId?: string } }).payload?.certificationId;
      if (id) void options.service.fail(id, error.message).catch((failure: unknown) => options.logger.error({ err: failure }, 'certification not marked as error'));
    }
  });
  worker.on('error', (error) => options.logger.error({ err: error }, 'certification worker error'));
  return worker;
}
