import { defaultJobOptions } from '@platform/queues';
import { type Logger } from '@platform/telemetry';
import type { Worker } from 'bullmq';
import type { CertificationsService } from './certifications.service';

/**
 * What the processor of `registry.certifications` does when a job fails: it is retried with
 * backoff; once its attempts are spent the certification is recorded as `error` and the job stays
 * in the failed (dead-letter) list for an operator to retry.
 */
export function recordFailedCertifications(worker: Worker, service: CertificationsService, logger: Logger): void {
  const attempts = defaultJobOptions.attempts ?? 1;
  worker.on('failed', (job, error) => {
    logger.warn({ err: error, jobId: job?.id, attempt: job?.attemptsMade }, 'certification job failed');
    if (job && (job.attemptsMade >= (job.opts.attempts ?? attempts) || error.name === 'UnrecoverableError')) {
      const id = (job.data as { payload?: { certificationId?: string } }).payload?.certificationId;
      if (id) void service.fail(id, error.message).catch((failure: unknown) => logger.error({ err: failure }, 'certification not marked as error'));
    }
  });
  worker.on('error', (error) => logger.error({ err: error }, 'certification worker error'));
}
