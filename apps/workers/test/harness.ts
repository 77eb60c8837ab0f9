import { sqlPool } from '@platform/data';
import { startService, type StartedService } from '@platform/service-kit';
import { closeLocally, eventually, listenLocally, TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import request from 'supertest';
import type { Db } from '../src/database';
import { EngineRepository } from '../src/engine/engine.repository';
import { workersService } from '../src/service';

export const ALL = ['workflows:read', 'workflows:write', 'workflows:admin', 'workers:read', 'workers:admin'];

export type Service = StartedService<unknown, unknown>;

/** A queue of its own per test file, so that files running at once never take each other's steps. */
export const testQueue = `workers.test-${uniqueName('q')}`;

/** Starts the workers service in this process against the real Postgres and Redis. */
export async function startWorkers(issuer: TestIssuer, env: Record<string, string> = {}): Promise<Service> {
  return (await startService(workersService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      WORKERS_REAPER_INTERVAL_MS: '500',
      WORKERS_HEARTBEAT_MS: '500',
      WORKERS_LEASE_MS: '3000',
      WORKERS_QUEUE: testQueue,
      WORKERS_ALLOW_PRIVATE_URLS: 'true',
      ...env,
    },
    verifier: issuer.verifier(),
  })) as unknown as Service;
}

export interface Call {
  path: string;
  method: string;
  body: string;
  idempotencyKey?: string;
  /** The `X-Attempt` header. */
  attempt?: string;
  at: number;
}

/**
 * A small HTTP server the steps call: `/ok` answers JSON, `/status/<code>`, `/slow/<ms>` answers
 * after a while (or never when the client aborts), `/echo` returns what it got. It records every
 * call, the calls in flight and the most in flight at once per path.
 */
export class Target {
  server!: Server;
  url = '';
  calls: Call[] = [];
  inFlight = new Map<string, number>();
  maxInFlight = new Map<string, number>();
  aborted: string[] = [];
  handlers = new Map<string, (req: IncomingMessage, res: ServerResponse, body: string) => void>();

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => this.handle(req, res, body));
    });
    this.url = await listenLocally(this.server);
    return this;
  }

  callsTo(path: string): Call[] {
    return this.calls.filter((call) => call.path === path);
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = (req.url ?? '/').split('?')[0]!;
    this.calls.push({
      path,
      method: req.method ?? 'GET',
      body,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      attempt: req.headers['x-attempt'] as string | undefined,
      at: Date.now(),
    });
    const now = (this.inFlight.get(path) ?? 0) + 1;
    this.inFlight.set(path, now);
    this.maxInFlight.set(path, Math.max(now, this.maxInFlight.get(path) ?? 0));
    let closed = false;
    const done = () => {
      if (closed) return;
      closed = true;
      this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1);
    };
    res.on('close', () => {
      if (!res.writableFinished) this.aborted.push(path);
      done();
    });
    const custom = this.handlers.get(path);
    if (custom) return custom(req, res, body);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-target': 'yes' });
      res.end(JSON.stringify(value));
    };
    const slow = /^\/slow\/(\d+)/.exec(path);
    if (slow) {
      const timer = setTimeout(() => json(200, { slept: Number(slow[1]) }), Number(slow[1]));
      res.on('close', () => clearTimeout(timer));
      return;
    }
    const status = /^\/status\/(\d{3})/.exec(path);
    if (status) return json(Number(status[1]), { status: Number(status[1]) });
    if (path.startsWith('/echo')) return json(200, { method: req.method, path, body: body ? JSON.parse(body) : null, key: req.headers['idempotency-key'] });
    json(200, { ok: true, path, n: this.calls.length });
  }

  async stop(): Promise<void> {
    await closeLocally(this.server);
  }
}

export const auth = (issuer: TestIssuer, permissions = ALL) => issuer.bearer(permissions);

/** Posts a definition and returns the started run's body. */
export async function startRun(svc: Service, issuer: TestIssuer, steps: unknown[], extra: Record<string, unknown> = {}) {
  const res = await request(svc.app)
    .post('/api/v1/workflows')
    .set('Authorization', auth(issuer))
    .send({ name: uniqueName('wf'), steps, ...extra });
  if (res.status !== 202) throw new Error(`start failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { workflow_id: string; name: string; version: number; state: string };
}

export async function dagOf(svc: Service, issuer: TestIssuer, runId: string) {
  const res = await request(svc.app).get(`/api/v1/workflows/${runId}/dag`).set('Authorization', auth(issuer));
  return res.body as {
    state: string;
    error: string | null;
    blocked_steps: string[];
    nodes: Array<{ id: string; task_id: string; state: string; attempt: number }>;
    edges: unknown[];
  };
}

/** Waits until the run is in one of `states` and returns its graph. */
export function runEnds(svc: Service, issuer: TestIssuer, runId: string, states = ['completed', 'failed', 'cancelled'], timeoutMs = 20_000) {
  return eventually(async () => {
    const dag = await dagOf(svc, issuer, runId);
    return states.includes(dag.state) ? dag : undefined;
  }, timeoutMs);
}

export async function traceOf(svc: Service, issuer: TestIssuer, runId: string) {
  const res = await request(svc.app).get(`/api/v1/workflows/${runId}/trace`).set('Authorization', auth(issuer));
  return res.body as {
    trace_id: string;
    timeline: Array<{
      step: string;
      attempt: number;
      state: string;
      worker: string;
      idempotency_key: string;
      error: string | null;
      started_at: string;
      finished_at: string | null;
    }>;
  };
}

/** The engine's repository over the service's Prisma client and a pg pool of its own (closed by `close`). */
export function engineOf(svc: Service): { engine: EngineRepository; close: () => Promise<void> } {
  const sql = sqlPool(testDatabaseUrl, 'workers', { poolSize: 2, statementTimeoutMs: 15_000 });
  return { engine: new EngineRepository(svc.infra.db as Db, testQueue, sql), close: () => sql.end() };
}
