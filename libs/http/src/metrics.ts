import type { Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics at `/metrics`: process defaults and an HTTP latency histogram by route. */
export function metrics(service: string): {
  middleware: RequestHandler;
  /** Records one finished request (createServiceApp calls it from its one 'finish' listener). */
  record: (req: Request, res: Response, durationSeconds: number) => void;
  router: Router;
  registry: Registry;
} {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const record = (req: Request, res: Response, durationSeconds: number) => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    duration.observe({ method: req.method, route, status: String(res.statusCode) }, durationSeconds);
  };
  const middleware: RequestHandler = (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => record(req, res, (performance.now() - started) / 1000));
    next();
  };
  const router = express.Router();
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return { middleware, record, router, registry };
}
