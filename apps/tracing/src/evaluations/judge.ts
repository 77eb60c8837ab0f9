import type { tracing } from '@platform/contracts';
import { z } from 'zod';
import { asText } from './metrics';

type LlmJudgeMetric = tracing.LlmJudgeMetric;

export interface JudgeOptions {
  /** The OpenAI-compatible chat completions URL (TRACING_JUDGE_URL). */
  url: string;
  /** The bearer token of each call: the judge's API key, or this service's platform token. */
  token?: () => Promise<string | undefined> | string | undefined;
  timeoutMs: number;
  /** Calls again, this many times, when the answer cannot be read as a grade. */
  parseRetries: number;
}

/** What the variables of a judge's prompt template are filled from. */
export interface JudgeInput {
  input: unknown;
  output: unknown;
  expected: unknown;
  metadata: unknown;
}

export interface Judgment {
  score: number;
  passed: boolean;
  reasoning: string;
  model: string;
  attempts: number;
  /** The exchange, for the judge call's span. */
  call: { prompt: string; completion: string; responseModel: string | null; inputTokens: number | null; outputTokens: number | null };
}

export class JudgeError extends Error {
  override name = 'JudgeError';
  constructor(
    message: string,
    /** Retrying cannot help (a refused request, answers that stayed malformed). */
    readonly permanent = false,
  ) {
    super(message);
  }
}

const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_REASONING = 10_000;

const Completion = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).partial().optional(),
});

const Grade = z.object({ score: z.coerce.number().finite(), reasoning: z.string().min(1) });

/** `{{input}}`, `{{output}}`, `{{expected}}`, `{{metadata}}` replaced by the example's values as text. */
export function renderPrompt(template: string, values: JudgeInput): string {
  return template.replace(/\{\{\s*(input|output|expected|metadata)\s*\}\}/g, (_, name: keyof JudgeInput) => asText(values[name]));
}

/** The grade in a model's answer: the JSON object alone, fenced in ```json, or amid prose. */
export function parseGrade(content: string, rubric: LlmJudgeMetric['rubric']): { score: number; reasoning: string } | string {
  const candidates = [content.trim(), /```(?:json)?\s*([\s\S]*?)```/.exec(content)?.[1], content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1)];
  for (const candidate of candidates) {
    if (!candidate) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    const grade = Grade.safeParse(parsed);
    if (!grade.success) return `the JSON object needs a numeric "score" and a "reasoning" text (${grade.error.issues[0]?.message})`;
    if (grade.data.score < rubric.min || grade.data.score > rubric.max) return `the score ${grade.data.score} is outside ${rubric.min} to ${rubric.max}`;
    return { score: grade.data.score, reasoning: grade.data.reasoning.slice(0, MAX_REASONING) };
  }
  return 'the answer holds no JSON object';
}

function instructions(rubric: LlmJudgeMetric['rubric']): string {
  return [
    `You grade the output of an AI system. Give it a score from ${rubric.min} to ${rubric.max}; a score of ${rubric.pass_threshold} or more passes.`,
    ...(rubric.criteria ? [`Scoring rubric:\n${rubric.criteria}`] : []),
    'Answer with one JSON object and nothing else: {"score": <number>, "reasoning": "<why, briefly>"}.',
  ].join('\n\n');
}

/**
 * LLM-as-a-judge over an OpenAI-compatible chat completions URL. A malformed answer (no JSON, no
 * score, a score outside the rubric's range) is asked again with the reason, up to `parseRetries`
 * times; a judge that cannot be reached or answers 5xx/429 is a retryable JudgeError, a 4xx a
 * permanent one.
 */
export class Judge {
  constructor(private readonly options: JudgeOptions) {}

  async grade(spec: LlmJudgeMetric, values: JudgeInput): Promise<Judgment> {
    const prompt = renderPrompt(spec.prompt, values);
    const messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }> = [
      { role: 'system', content: instructions(spec.rubric) },
      { role: 'user', content: prompt },
    ];
    let problem = '';
    for (let attempt = 1; attempt <= 1 + this.options.parseRetries; attempt++) {
      const answer = await this.complete(spec, messages);
      const content = answer.choices[0].message.content ?? '';
      const grade = parseGrade(content, spec.rubric);
      if (typeof grade !== 'string') {
        return {
          ...grade,
          passed: grade.score >= spec.rubric.pass_threshold,
          model: spec.model,
          attempts: attempt,
          call: {
            prompt,
            completion: content,
            responseModel: answer.model ?? null,
            inputTokens: answer.usage?.prompt_tokens ?? null,
            outputTokens: answer.usage?.completion_tokens ?? null,
          },
        };
      }
      problem = grade;
      messages.push(
        { role: 'assistant', content: content.slice(0, 20_000) },
        {
          role: 'user',
          content: `That answer could not be read: ${problem}. Answer again with only the JSON object {"score": <number>, "reasoning": "<text>"}.`,
        },
      );
    }
    throw new JudgeError(`the judge's answer was malformed ${1 + this.options.parseRetries} times: ${problem}`, true);
  }

  private async complete(spec: LlmJudgeMetric, messages: Array<{ role: string; content: string }>): Promise<z.infer<typeof Completion>> {
    const token = await this.options.token?.();
    let response: Response;
    try {
      response = await fetch(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify({ model: spec.model, messages, temperature: spec.temperature, response_format: { type: 'json_object' } }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new JudgeError(`the judge at ${new URL(this.options.url).host} is unavailable: ${cause}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 429 || response.status >= 500) throw new JudgeError(`the judge answered ${response.status}`);
    if (response.status < 200 || response.status >= 300)
      throw new JudgeError(`the judge refused the request (${response.status}): ${text.slice(0, 300)}`, true);
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new JudgeError('the judge answered more than 1 MiB', true);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new JudgeError('the judge answered something other than JSON');
    }
    const completion = Completion.safeParse(body);
    if (!completion.success) throw new JudgeError('the judge answered something other than a chat completion', true);
    return completion.data;
  }
}
