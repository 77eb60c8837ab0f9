import { finished, startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(14);
});
afterAll(() => engine.stop());

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

describe('a restart mid-execution', () => {
  it('resumes from the last completed node and never runs a completed node again', async () => {
    const wf = await engine.createWorkflow({
      nodes: [
        node('first', 'LLMNode', { prompt: 'restart first' }),
        node('side', 'LLMNode', { prompt: 'restart side' }),
        node('held', 'LLMNode', { prompt: 'HOLD:restart1 {{first.completion}}' }),
        node('last', 'LLMNode', { prompt: 'restart last {{held.completion}} {{side.completion}}' }),
      ],
      edges: [
        { source: 'first', target: 'held' },
        { source: 'held', target: 'last' },
        { source: 'side', target: 'last' },
      ],
    });
    const { executionId } = (await engine.execute(wf.id)).body;
    for (;;) {
      const now = await engine.execution(executionId);
      const byId = Object.fromEntries(now.nodes.map((n: { nodeId: string; status: string }) => [n.nodeId, n.status]));
      if (byId.held === 'running' && byId.side === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The service stops while `held` waits on its model; a new instance takes the run over.
    await engine.restart();
    const during = await engine.execution(executionId);
    expect(during.status).toBe('running');
    expect(during.nodes.find((n: { nodeId: string }) => n.nodeId === 'first').status).toBe('completed');
    engine.ollama.release('restart1');
    const done = await finished(engine, executionId, 20_000);
    expect(done.status).toBe('completed');
    expect(done.result.last.completion).toBe('echo(restart last echo(HOLD:restart1 echo(restart first)) echo(restart side))');
    const prompts = engine.ollama.prompts();
    expect(prompts.filter((p) => p === 'restart first')).toHaveLength(1);
    expect(prompts.filter((p) => p === 'restart side')).toHaveLength(1);
    expect(prompts.filter((p) => p.startsWith('HOLD:restart1'))).toHaveLength(2);
    expect(prompts.filter((p) => p.startsWith('restart last'))).toHaveLength(1);
  });
});
