import type { HealthResponse } from '@platform/contracts';
import express, { type Router } from 'express';

/** A dependency probe: resolves when the dependency answers. */
export type HealthCheck = () => Promise<unknown>;

export interface HealthOptions {
  version: string;
  checks: Record<string, HealthCheck>;
  /** Extra fields a service's spec adds to `/health`. */
  extra?: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Extra paths that answer like `/health` (for example `/api/health`). */
  aliases?: string[];
  timeoutMs?: number;
}

const startedAt = Date.now();

function withTimeout(check: HealthCheck, ms: number): Promise<unknown> {
  return Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** `/health`, `/health/ready` (really probes every dependency; 503 when one is down), `/health/live`. */
export function healthRouter(options: HealthOptions): Router {
  const router = express.Router();
  const timeoutMs = options.timeoutMs ?? 2000;
  const report = async (): Promise<HealthResponse> => {
    const entries = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check, timeoutMs);
          return [name, 'up'] as const;
        } catch {
          return [name, 'down'] as const;
        }
      }),
    );
    const dependencies = Object.fromEntries(entries);
    return {
      status: entries.every(([, status]) => status === 'up') ? 'healthy' : 'unhealthy',
      version: options.version,
      uptime: Math.floor((Date.now() - startedAt) / 1000),
      dependencies,
    };
  };
  const full = async (_req: express.Request, res: express.Response) => {
    const body = await report();
    res.status(body.status === 'healthy' ? 200 : 503).json({ ...body, ...(await options.extra?.()) });
  };
  router.get(['/health', ...(options.aliases ?? [])], full);
  router.get('/health/ready', async (_req, res) => {
    const body = await report();
    res.status(body.status === 'healthy' ? 200 : 503).json(body);
  });
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'healthy', version: options.version, uptime: Math.floor((Date.now() - startedAt) / 1000), dependencies: {} });
  });
  return router;
}
