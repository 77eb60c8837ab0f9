import { createWorker, defineQueue, TypedQueue } from '@platform/queues';
import type { Worker } from 'bullmq';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit.service';
import type { KeyRing } from './signing-keys.service';

export const keyRotationQueue = defineQueue('auth.signing-keys', z.object({}));
const CHECK_EVERY_MS = 15 * 60_000;

/** One scheduler across replicas: BullMQ's job scheduler upserts by id, so replicas share it. */
export async function scheduleRotationChecks(queue: TypedQueue<typeof keyRotationQueue.payload>): Promise<void> {
  await queue.queue.upsertJobScheduler('rotate-if-due', { every: CHECK_EVERY_MS }, { name: 'rotate-if-due', data: { payload: {} } });
}

/** The job: rotates the signing key when it is due, and records the rotation. */
export function rotationJob(keys: KeyRing, audit: AuditLog) {
  return async () => {
    await keys.load();
    const rotated = await keys.rotateIfDue();
    if (rotated) {
      await audit.record({
        eventType: 'signing_key_rotated',
        metadata: { kid: rotated.kid, activatesAt: rotated.activatesAt.toISOString(), trigger: 'schedule' },
      });
    }
    return rotated?.kid ?? null;
  };
}

/** A producer with the schedule in place (tests; the service uses its bootstrap's producer). */
export async function scheduleKeyRotation(redisUrl: string): Promise<TypedQueue<typeof keyRotationQueue.payload>> {
  const queue = new TypedQueue(keyRotationQueue, redisUrl);
  await scheduleRotationChecks(queue);
  return queue;
}

/** A processor of the rotation checks outside the bootstrap (tests). */
export function keyRotationWorker(redisUrl: string, keys: KeyRing, audit: AuditLog): Worker {
  return createWorker(keyRotationQueue, redisUrl, rotationJob(keys, audit), { concurrency: 1 });
}
