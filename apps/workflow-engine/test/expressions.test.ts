import { spawnService, TestIssuer } from '@platform/testing';
import jsonata from 'jsonata';
import { readFileSync } from 'node:fs';
import { runsInline } from '../src/expressions/expressions';
import { redisDatabase, startEngine, type Engine } from './harness';

// The probe's escapes (issue 27): JSONata that froze the engine's event loop for minutes. Each is
// now stopped by its time or memory budget in an evaluator process, and the engine answers
// /health/live while it runs.
let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(4, { WORKFLOW_ENGINE_EXPRESSION_TIMEOUT_MS: '4000', WORKFLOW_ENGINE_EXPRESSION_MEMORY_MB: '64' });
});
afterAll(() => engine.stop());

const condition = (expression: string, input: unknown = { value: 7 }) => ({
  nodes: [{ id: 'check', type: 'Condition', position: { x: 0, y: 0 }, data: { condition: expression, input } }],
});

/** Runs the expression; polls /health/live until the run ends, noting whether it answered while the run was still going. */
async function runWatchingHealth(expression: string) {
  const wf = await engine.createWorkflow(condition(expression));
  const { executionId } = (await engine.execute(wf.id)).body;
  let answeredWhileRunning = 0;
  for (let i = 0; i < 600; i++) {
    const live = await fetch(`${engine.svc.url}/health/live`);
    expect(live.status).toBe(200);
    const now = await engine.execution(executionId);
    if (now.status === 'completed' || now.status === 'failed') return { execution: now, answeredWhileRunning };
    answeredWhileRunning++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`execution ${executionId} did not end`);
}

describe('expressions with a budget', () => {
  it('stops an expression past its time (a regular expression that backtracks for ever), and health answers meanwhile', async () => {
    const { execution, answeredWhileRunning } = await runWatchingHealth('$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)');
    expect(execution).toMatchObject({
      status: 'failed',
      error: {
        nodeId: 'check',
        code: 'EXPRESSION_TIMEOUT',
        message: 'The condition was stopped: The expression ran longer than its 4000 ms and was stopped',
        retryable: false,
      },
    });
    expect(answeredWhileRunning).toBeGreaterThan(0);
  });

  it('stops endless recursion, and health answers while it runs', async () => {
    const { execution, answeredWhileRunning } = await runWatchingHealth('($f := function($n){ $f($n+1) }; $f(0))');
    expect(execution).toMatchObject({
      status: 'failed',
      error: { nodeId: 'check', code: expect.stringMatching(/^EXPRESSION_(TIMEOUT|MEMORY)$/), retryable: false },
    });
    expect(execution.error.message).toMatch(/^The condition was stopped: The expression (ran longer than its 4000 ms|used more than its 64 MB)/);
    expect(answeredWhileRunning).toBeGreaterThan(0);
  });

  it('stops a range of ten million items, and health answers while it runs', async () => {
    const { execution, answeredWhileRunning } = await runWatchingHealth('$count([1..9999999])');
    expect(execution).toMatchObject({ status: 'failed', error: { code: expect.stringMatching(/^EXPRESSION_(TIMEOUT|MEMORY)$/), retryable: false } });
    expect(answeredWhileRunning).toBeGreaterThan(0);
  });

  it('stops an expression that allocates a huge string', async () => {
    const { execution } = await runWatchingHealth(
      '($double := function($s, $n){ $n = 0 ? $s : $double($s & $s, $n - 1) }; $length($double("xxxxxxxxxx", 23) & "y"))',
    );
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'EXPRESSION_MEMORY', retryable: false } });
    expect(execution.error.message).toBe('The condition was stopped: The expression used more than its 64 MB of memory and was stopped');
  });

  it('refuses a result too large to bring back into the engine', async () => {
    const { execution } = await runWatchingHealth('$pad("x", 2000000)');
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'EXPRESSION_MEMORY' } });
    expect(execution.error.message).toMatch(/result is 2000002 bytes of JSON, more than the 1000000 allowed/);
  });

  it('still evaluates ordinary expressions after its evaluators were replaced, and reports their own errors as before', async () => {
    const ok = await engine.execute((await engine.createWorkflow(condition('value > 1 and $count([1..10]) = 10'))).id, { options: { async: false } });
    expect(ok.body).toMatchObject({ status: 'completed', result: { check: { result: true, value: true } } });
    const bad = await engine.execute((await engine.createWorkflow(condition('value >'))).id, { options: { async: false } });
    expect(bad.body).toMatchObject({
      status: 'failed',
      error: { code: 'CONDITION_ERROR', message: expect.stringMatching(/^The condition could not be evaluated: /) },
    });
  });
});

describe('which expressions run inline', () => {
  const inline = (source: string) => runsInline(jsonata(source).ast());

  it.each([
    'value > 1',
    '$count($) = 4',
    'value = 7 and name != "x"',
    'items[price > 10].name',
    '$contains(text, "topic")',
    'a ? b : -c * 2',
    '$sum(items.price) >= 100',
    'status in ["ok", "done"]',
  ])('%s runs on the event loop (linear in its input)', (source) => expect(inline(source)).toBe(true));

  it.each([
    '($f := function($n){ $f($n+1) }; $f(0))',
    '$count([1..9999999])',
    '$pad("x", 300000000)',
    '$eval("$count([1..9999999])")',
    '$contains(text, /^(a+)+$/)',
    'items.$map(function($v){ $v })',
    'a[b[c = 1]]',
    'a[$$.b = 1]',
    'items^(price)',
    'items{name: price}',
    '$x := 1',
    'a ~> $count',
  ])('%s goes to an evaluator process', (source) => expect(inline(source)).toBe(false));
});

describe('evaluator processes', () => {
  /** Every process under `pid` (Linux: each thread's `children` in /proc). */
  const descendants = (pid: number): number[] => {
    const tasks = (() => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
      } catch {
        return '';
      }
    })();
    const children = tasks.split(' ').filter(Boolean).map(Number);
    return children.flatMap((child) => [child, ...descendants(child)]);
  };
  const alive = (pid: number) => {
    try {
      return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
    } catch {
      return false;
    }
  };

  it('do not outlive an engine killed with SIGKILL, even one stuck in an expression', async () => {
    const issuer = await new TestIssuer().start();
    const service = await spawnService('workflow-engine', {
      env: {
        AUTH_URL: new URL(issuer.jwksUri).origin,
        AUTH_ISSUER: issuer.issuer,
        REDIS_URL: redisDatabase(1),
        WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
        WORKFLOW_ENGINE_EXPRESSION_TIMEOUT_MS: '600000',
      },
    });
    try {
      const auth = { Authorization: issuer.bearer(['workflows:read', 'workflows:write'], { sub: 'orphan-test' }), 'Content-Type': 'application/json' };
      const created = await fetch(`${service.url}/api/v1/workflows`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'stuck', category: 'testing', flow: condition('$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)') }),
      }).then((res) => res.json() as Promise<{ id: string }>);
      await fetch(`${service.url}/api/v1/workflows/${created.id}/execute`, { method: 'POST', headers: auth, body: '{}' });
      const evaluators = descendants(service.child.pid!).filter(alive);
      expect(evaluators.length).toBeGreaterThan(0);
      // Killed only once one evaluator is inside the expression (it has spent half a second of CPU).
      const cpuTicks = (pid: number) => {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return Number(fields[11]) + Number(fields[12]);
      };
      for (let i = 0; i < 600 && !evaluators.some((pid) => alive(pid) && cpuTicks(pid) > 50); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(evaluators.some((pid) => cpuTicks(pid) > 50)).toBe(true);
      await service.kill();
      for (let i = 0; i < 100 && evaluators.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(evaluators.filter(alive)).toEqual([]);
    } finally {
      await service.stop().catch(() => undefined);
      await issuer.stop();
    }
  }, 90_000);
});
