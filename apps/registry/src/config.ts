import { baseEnvShape, loadConfig } from '@platform/config';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const registryEnvShape = {
  ...baseEnvShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3004),
  /** Spec 2's agent-service limit: requests per minute per caller, and the burst above it. */
  REGISTRY_RATE_LIMIT: positiveInt(500),
  REGISTRY_RATE_BURST: positiveInt(750),
  REGISTRY_RATE_WINDOW: positiveInt(60),
  /** Public base URL of this service (the `$id` of the published manifest JSON Schema). */
  REGISTRY_PUBLIC_URL: z.string().url().default('http://127.0.0.1:3004'),
  /** Largest manifest accepted for publishing, in bytes. */
  REGISTRY_MANIFEST_MAX_BYTES: positiveInt(1024 * 1024),
  /** Certification jobs processed at once by one worker. */
  REGISTRY_CERTIFICATION_CONCURRENCY: positiveInt(2),
  /** Usage counters are added up in memory and written this often (ms); 0 writes each event at once. */
  REGISTRY_USAGE_FLUSH_MS: z.coerce.number().int().min(0).default(1000),
  /** Postgres connections of one process. */
  REGISTRY_DB_POOL_SIZE: positiveInt(10),
};

export type RegistryConfig = ReturnType<typeof loadRegistryConfig>;

export function loadRegistryConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(registryEnvShape, env);
}
