import { spawnService, TestIssuer, type ServiceProcess } from '@platform/testing';
import { fakeOllama } from './fakes';
import { redisDatabase } from './harness';

// A worker killed with SIGKILL mid-execution: BullMQ sees the job's lock expire (about 30 s) and
// hands it to the next worker, which resumes from Postgres without re-running completed nodes.
let issuer: TestIssuer;
let ollama: ReturnType<typeof fakeOllama>;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  issuer = await new TestIssuer().start();
  ollama = await fakeOllama().start();
});
afterAll(async () => {
  for (const service of processes) await service.stop().catch(() => undefined);
  await ollama.stop();
  await issuer.stop();
});

const start = async () => {
  const service = await spawnService('workflow-engine', {
    env: {
      AUTH_URL: new URL(issuer.jwksUri).origin,
      AUTH_ISSUER: issuer.issuer,
      LOCAL_MODELS_URL: ollama.url,
      LOG_LEVEL: 'info',
      REDIS_URL: redisDatabase(8),
      WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
    },
  });
  processes.push(service);
  return service;
};

it('resumes an execution whose worker crashed, without running its completed nodes again', async () => {
  const first = await start();
  const auth = { Authorization: issuer.bearer(['workflows:read', 'workflows:write'], { sub: 'crash-test-user' }), 'Content-Type': 'application/json' };
  const created = await fetch(`${first.url}/api/v1/workflows`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      name: 'crash',
      category: 'testing',
      flow: {
        nodes: [
          { id: 'a', type: 'LLMNode', data: { prompt: 'crash a' } },
          { id: 'b', type: 'LLMNode', data: { prompt: 'HOLD:crash1 {{a.completion}}' } },
        ],
        edges: [{ source: 'a', target: 'b' }],
      },
    }),
  }).then((res) => res.json() as Promise<{ id: string }>);
  const { executionId } = await fetch(`${first.url}/api/v1/workflows/${created.id}/execute`, { method: 'POST', headers: auth, body: '{}' }).then(
    (res) => res.json() as Promise<{ executionId: string }>,
  );
  const read = (url: string) =>
    fetch(`${url}/api/v1/executions/${executionId}`, { headers: auth }).then(
      (res) => res.json() as Promise<{ status: string; nodes: Array<{ nodeId: string; status: string }>; result: Record<string, { completion: string }> }>,
    );
  for (;;) {
    const now = await read(first.url);
    if (now.nodes[1].status === 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await first.kill();
  const second = await start();
  ollama.release('crash1');
  let done = await read(second.url);
  for (let i = 0; i < 900 && done.status !== 'completed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    done = await read(second.url);
  }
  expect(done.status).toBe('completed');
  expect(done.result.b.completion).toBe('echo(HOLD:crash1 echo(crash a))');
  expect(ollama.prompts().filter((prompt) => prompt === 'crash a')).toHaveLength(1);
}, 150_000);
