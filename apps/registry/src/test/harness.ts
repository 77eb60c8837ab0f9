import { migrateDatabase } from '@platform/data';
import { TypedQueue } from '@platform/queues';
import { createLogger } from '@platform/telemetry';
import { testDatabaseUrl, testRedisUrl, TestIssuer, uniqueName } from '@platform/testing';
import type { Worker } from 'bullmq';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createApp, type RegistryServices } from '../app';
import { certificationQueue } from '../certifications/certification-queue';
import { startCertificationWorker } from '../certifications/certification-worker';
import { createDb, type Db } from '../database';

export interface Harness {
  app: Express;
  issuer: TestIssuer;
  db: Db;
  services: RegistryServices;
  worker?: Worker;
  /** A caller with its own `sub`: `Authorization` header values with the given permissions. */
  user: (permissions?: string[]) => { sub: string; auth: string };
  publish: (auth: string, document: unknown, path?: string) => request.Test;
  stop: () => Promise<void>;
}

let migrated: Promise<void> | undefined;

/**
 * The registry app against the machine's real Postgres and Redis, with a real JWKS issuer on
 * loopback. Each test names its own namespaces (uniqueName), so files share the database safely.
 */
export async function startHarness(options: { worker?: boolean; rateLimit?: number; queueClosed?: boolean } = {}): Promise<Harness> {
  migrated ??= migrateDatabase('registry', testDatabaseUrl);
  await migrated;
  const issuer = await new TestIssuer().start();
  const db = createDb(testDatabaseUrl, 4);
  const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
  const logger = createLogger('registry-test', '0.0.0', process.env.TEST_LOG_LEVEL ?? 'silent');
  const queue = new TypedQueue(certificationQueue, testRedisUrl);
  const { app, services } = createApp({
    config: {
      REGISTRY_RATE_LIMIT: options.rateLimit ?? 100_000,
      REGISTRY_RATE_BURST: options.rateLimit ?? 100_000,
      REGISTRY_RATE_WINDOW: 60,
      REGISTRY_MANIFEST_MAX_BYTES: 64 * 1024,
      REGISTRY_PUBLIC_URL: 'http://registry.test',
      BODY_LIMIT: '1mb',
    },
    logger,
    db,
    redis,
    verifier: issuer.verifier(),
    certificationQueue: queue,
  });
  // A queue whose connection is gone: what the API sees when Redis drops.
  if (options.queueClosed) await queue.close();
  const worker = options.worker ? startCertificationWorker({ redisUrl: testRedisUrl, service: services.certifications, logger, concurrency: 2 }) : undefined;
  return {
    app,
    issuer,
    db,
    services,
    worker,
    user: (permissions = ['registry:read', 'registry:write']) => {
      const sub = uniqueName('user');
      return { sub, auth: issuer.bearer(permissions, { sub }) };
    },
    publish: (auth, document, path = '/api/v1/agents') => {
      const test = request(app).post(path).set('Authorization', auth);
      return typeof document === 'string' ? test.set('Content-Type', 'application/yaml').send(document) : test.send(document as object);
    },
    stop: async () => {
      await worker?.close();
      await services.usage.flush();
      if (!options.queueClosed) await queue.close();
      await redis.quit();
      await db.$disconnect();
      await issuer.stop();
    },
  };
}
