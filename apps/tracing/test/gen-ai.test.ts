import { PriceTable, Pricing } from '@platform/contracts';
import { modelCallOf } from '../src/ingest/gen-ai';

const s = (stringValue: string) => ({ stringValue });
const i = (value: number) => ({ intValue: String(value) });

describe('modelCallOf: GenAI and OpenInference attributes', () => {
  const pricing = new Pricing(PriceTable.parse(JSON.stringify({ 'gpt-4o': { input: 2.5, output: 10 }, llama3: 0.1 })));

  it('reads gen_ai.* and prices the answering model, else the requested one', () => {
    expect(
      modelCallOf(
        {
          'gen_ai.request.model': s('gpt-4o'),
          'gen_ai.response.model': s('gpt-4o-2024-08-06'),
          'gen_ai.system': s('openai'),
          'gen_ai.usage.input_tokens': i(1000),
          'gen_ai.usage.output_tokens': i(100),
        },
        {},
        pricing,
      ),
    ).toEqual({ sessionId: null, userId: null, model: 'gpt-4o-2024-08-06', modelSystem: 'openai', inputTokens: 1000n, outputTokens: 100n, cost: 3.5 });
  });

  it('falls back to OpenInference llm.* and the older prompt/completion token names; session and user from the resource', () => {
    expect(
      modelCallOf(
        { 'llm.model_name': s('llama3:latest'), 'llm.token_count.prompt': i(500), 'llm.token_count.completion': i(500) },
        { 'session.id': s('s1'), 'user.id': s('u1') },
        pricing,
      ),
    ).toMatchObject({
      model: 'llama3:latest',
      inputTokens: 500n,
      outputTokens: 500n,
      cost: 0.1,
      sessionId: 's1',
      userId: 'u1',
    });
    expect(
      modelCallOf({ 'gen_ai.request.model': s('x'), 'gen_ai.usage.prompt_tokens': i(7), 'gen_ai.usage.completion_tokens': i(3) }, {}, pricing),
    ).toMatchObject({ inputTokens: 7n, outputTokens: 3n, cost: null });
  });

  it('is no model call without a model; refuses token counts that are not counts', () => {
    expect(modelCallOf({ 'session.id': s('s2'), 'gen_ai.usage.input_tokens': i(5) }, {}, pricing)).toEqual({
      sessionId: 's2',
      userId: null,
      model: null,
      modelSystem: null,
      inputTokens: null,
      outputTokens: null,
      cost: null,
    });
    expect(modelCallOf({ 'gen_ai.request.model': s('gpt-4o'), 'gen_ai.usage.input_tokens': s('-3') }, {}, pricing)).toMatchObject({
      inputTokens: null,
      cost: 0,
    });
  });
});
