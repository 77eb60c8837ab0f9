import { startService } from '@platform/service-kit';
import { FakeCms, TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { workflowEngineService } from '../src/service';
import { fakeGitLab, fakeImages, fakeMcpRegistry, fakeOllama } from './fakes';

export type Engine = Awaited<ReturnType<typeof startEngine>>;

/**
 * A Redis logical database of the test file's own: the engine's queues have fixed names, so test
 * files running side by side (CI runs two at once) must not take each other's jobs.
 */
export function redisDatabase(index: number): string {
  const url = new URL(testRedisUrl);
  url.pathname = `/${index}`;
  return url.toString();
}

/** The engine started in-process against the real Postgres and Redis, with fakes for its peers. */
export async function startEngine(redisDb: number, env: Record<string, string> = {}) {
  const issuer = await new TestIssuer().start();
  const ollama = await fakeOllama().start();
  const mcp = await fakeMcpRegistry().start();
  const cms = await new FakeCms({ users: { editor: 'pa55word' } }).start();
  const gitlab = await fakeGitLab().start();
  const images = await fakeImages().start();
  const baseEnv = {
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: testDatabaseUrl,
    REDIS_URL: redisDatabase(redisDb),
    LOCAL_MODELS_URL: ollama.url,
    MCP_REGISTRY_URL: mcp.url,
    CMS_URL: cms.url,
    CMS_API_KEY: 'cms-test-key',
    SCM_URL: gitlab.url,
    SCM_TOKEN: 'scm-token',
    IMAGE_API_URL: images.url,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_DELAY_MS: '50',
    WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
    WORKFLOW_ENGINE_RATE_LIMIT: '100000',
    WORKFLOW_ENGINE_RATE_BURST: '100000',
    ...env,
  };
  const start = (extra: Record<string, string> = {}) => startService(workflowEngineService, { env: { ...baseEnv, ...extra }, verifier: issuer.verifier() });
  let svc = await start();
  // One user for the file's requests: what it creates it owns, so it reads and runs it.
  const user = uniqueName('user');
  const engine = {
    user,
    issuer,
    ollama,
    mcp,
    cms,
    gitlab,
    images,
    get svc() {
      return svc;
    },
    get app() {
      return svc.app;
    },
    auth: (permissions: string[] = ['workflows:read', 'workflows:write']) => issuer.bearer(permissions, { sub: user }),
    /** A bare token of the file's user (WebSocket `access_token`). */
    token: (permissions: string[] = ['workflows:read']) => issuer.token({ sub: user, permissions }),
    /** Stops the service and starts it again on the same peers (a restart). */
    async restart(extra: Record<string, string> = {}) {
      await svc.stop();
      svc = await start(extra);
    },
    async createWorkflow(flow: unknown, extra: Record<string, unknown> = {}) {
      const res = await request(svc.app)
        .post('/api/v1/workflows')
        .set('Authorization', engine.auth())
        .send({ name: 'test', category: 'testing', flow, ...extra });
      if (res.status !== 201) throw new Error(`create failed ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as { id: string; webhookSecret: string };
    },
    async execute(workflowId: string, body: Record<string, unknown> = {}) {
      return request(svc.app).post(`/api/v1/workflows/${workflowId}/execute`).set('Authorization', engine.auth()).send(body);
    },
    async execution(id: string) {
      return (await request(svc.app).get(`/api/v1/executions/${id}`).set('Authorization', engine.auth())).body;
    },
    async stop() {
      await svc.stop();
      await Promise.all([issuer.stop(), ollama.stop(), mcp.stop(), cms.stop(), gitlab.stop(), images.stop()]);
    },
  };
  return engine;
}

/** Waits until the execution has ended and returns it. */
export async function finished(engine: Engine, id: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await engine.execution(id);
    if (body.status === 'completed' || body.status === 'failed') return body;
    if (Date.now() > deadline) throw new Error(`execution ${id} still ${body.status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
