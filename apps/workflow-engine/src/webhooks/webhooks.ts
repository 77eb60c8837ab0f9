import { guardedFetch } from '@platform/http';
import type { TypedQueue } from '@platform/queues';
import type { Logger } from '@platform/telemetry';
import { randomUUID } from 'node:crypto';
import type { webhookQueue } from '../executions/execution-queue';
import type { SecretBox } from './secret-box';
import { signWebhook } from './signature';

export interface WebhookOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxAttempts: number;
  retryDelayMs: number;
}

/** Thrown for an answer that is not 2xx: BullMQ retries the delivery with backoff. */
export class DeliveryFailed extends Error {}

/**
 * Signed callbacks (onComplete, onError, progressCallback). Every delivery goes through one
 * function, `deliver`, and through the outbound guard; failures are retried by the queue with
 * exponential backoff and end in its dead-letter list.
 */
export class Webhooks {
  constructor(
    /** The workflow's sealed signing secret. */
    private readonly sealedSecretOf: (workflowId: string) => Promise<string | undefined>,
    private readonly queue: TypedQueue<typeof webhookQueue.payload>,
    private readonly secrets: SecretBox,
    private readonly options: WebhookOptions,
    private readonly logger: Logger,
  ) {}

  /** Queues a callback; one message id for all its attempts, as Standard Webhooks asks. */
  async enqueue(workflowId: string, url: string | undefined, type: string, body: Record<string, unknown>): Promise<void> {
    if (!url) return;
    const messageId = `msg_${randomUUID()}`;
    await this.queue.add(
      type,
      { workflowId, url, messageId, type, body },
      { jobId: messageId, attempts: this.options.maxAttempts, backoff: { type: 'exponential', delay: this.options.retryDelayMs } },
    );
  }

  /** The one outbound call of callbacks. */
  async deliver(job: { workflowId: string; url: string; messageId: string; type: string; body: Record<string, unknown> }): Promise<void> {
    const sealed = await this.sealedSecretOf(job.workflowId);
    if (!sealed) return;
    const payload = JSON.stringify({ type: job.type, timestamp: new Date().toISOString(), data: job.body });
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await guardedFetch(
      job.url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'webhook-id': job.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(this.secrets.open(sealed), job.messageId, timestamp, payload),
          'User-Agent': 'agent-platform-workflow-engine',
        },
        body: payload,
      },
      { allowPrivate: this.options.allowPrivate, timeoutMs: this.options.timeoutMs, maxBytes: 64 * 1024, maxRedirects: 0 },
    );
    if (response.status < 200 || response.status >= 300) {
      this.logger.info({ messageId: job.messageId, status: response.status, host: new URL(job.url).host }, 'callback refused; retried with backoff');
      throw new DeliveryFailed(`${new URL(job.url).host} answered ${response.status}`);
    }
  }
}
