import { badRequest, type Caller } from '@platform/http';
import type { TypedQueue } from '@platform/queues';
import type { tracing } from '@platform/contracts';
import { UnrecoverableError, type Job } from 'bullmq';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { rules } from '../access';
import type { DatasetsRepository } from '../datasets/datasets.repository';
import type { IngestService } from '../ingest/ingest.service';
import type { SpansRepository } from '../spans/spans.repository';
import type { evaluationQueue } from './evaluations.queue';
import type { Counts, EvaluationRow, EvaluationsRepository, ResultRow } from './evaluations.repository';
import { JudgeError, type Judge, type Judgment } from './judge';
import { isJudge, metricName, regexPattern, score } from './metrics';
import { callTarget, TargetError } from './target-client';

type Evaluation = z.infer<typeof tracing.Evaluation>;
type MetricSpec = tracing.MetricSpec;
type Target = z.infer<typeof tracing.EvaluationTarget>;
type Example = { input: unknown; expected_output?: unknown; output?: unknown; metadata?: Record<string, unknown> };

/** The project that holds the evaluations' own spans. */
export const EVALUATION_PROJECT = 'evaluations';
const HEX_TRACE = /^[0-9a-f]{32}$/;

export interface EvaluationOptions {
  attempts: number;
  backoffMs: number;
  allowPrivateTargets: boolean;
  /** Grades the LLM-judge metrics. */
  judge: Judge;
}

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/**
 * Evaluations: one BullMQ job per example. An example's output comes from the target (called
 * through the outbound guard, traced) or from the example itself; the metrics score it.
 */
export class EvaluationsService {
  constructor(
    private readonly evaluations: EvaluationsRepository,
    private readonly datasets: DatasetsRepository,
    private readonly spans: SpansRepository,
    private readonly ingest: IngestService,
    private readonly queue: TypedQueue<typeof evaluationQueue.payload>,
    private readonly options: EvaluationOptions,
  ) {}

  /** Evaluates a dataset the caller may read (404 otherwise); the evaluation is the caller's. */
  async create(who: Caller, body: z.infer<typeof tracing.CreateEvaluation>): Promise<Evaluation> {
    const owned = rules.evaluation.ownerFor(who, body.team);
    const names = body.metrics.map(metricName);
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    if (repeated) {
      throw badRequest('Two metrics keep their scores under one name', {
        issues: [
          { path: `body.metrics.${names.lastIndexOf(repeated)}`, message: `${repeated} is named twice (give each llm_judge its own name)`, code: 'custom' },
        ],
      });
    }
    for (const [index, spec] of body.metrics.entries()) {
      const pattern = typeof spec === 'object' && 'pattern' in spec ? spec.pattern : undefined;
      if (pattern === undefined) continue;
      try {
        new RegExp(pattern, 'u');
      } catch (error) {
        throw badRequest('A regex metric has an invalid pattern', {
          issues: [{ path: `body.metrics.${index}.pattern`, message: (error as Error).message, code: 'custom' }],
        });
      }
    }
    const dataset = rules.dataset.readable(who, await this.datasets.get(body.dataset_id), body.dataset_id);
    const row = await this.evaluations.create({
      name: body.name,
      datasetId: dataset.id,
      metrics: body.metrics,
      target: body.target,
      total: dataset.exampleCount,
      ...owned,
    });
    await this.enqueue(
      row.id,
      Array.from({ length: dataset.exampleCount }, (_, index) => index),
      0,
    );
    return (await this.views([row]))[0];
  }

  private async enqueue(evaluationId: string, indexes: number[], round: number): Promise<void> {
    // Deterministic job ids: a repeated enqueue of the same round adds nothing.
    const jobs = indexes.map((index) => ({
      name: 'example',
      payload: { evaluationId, index },
      options: { jobId: `${evaluationId}-${index}-${round}`, attempts: this.options.attempts, backoff: { type: 'exponential', delay: this.options.backoffMs } },
    }));
    for (let start = 0; start < jobs.length; start += 500) {
      await Promise.all(jobs.slice(start, start + 500).map((job) => this.queue.add(job.name, job.payload, job.options)));
    }
  }

  async list(who: Caller, query: z.infer<typeof tracing.EvaluationQuery>): Promise<z.infer<typeof tracing.EvaluationPage>> {
    const { rows, total } = await this.evaluations.list(rules.evaluation.readScope(who), query.limit, query.offset);
    return { evaluations: await this.views(rows), total, limit: query.limit, offset: query.offset };
  }

  /** Results of an evaluation the caller may read (404 otherwise). */
  async results(
    who: Caller,
    id: string,
    status: 'failed' | undefined,
    query: z.infer<typeof tracing.EvaluationQuery>,
  ): Promise<z.infer<typeof tracing.EvaluationResultPage>> {
    const evaluation = rules.evaluation.readable(who, await this.evaluations.get(id), id);
    const { rows, total } = await this.evaluations.results(id, status, query.limit, query.offset);
    const examples = await Promise.all(rows.map((row) => this.datasets.example(evaluation.datasetId, row.position) as Promise<Example | undefined>));
    return { results: rows.map((row, i) => resultView(row, examples[i])), total, limit: query.limit, offset: query.offset };
  }

  /** Runs the failed examples again: the owner, a team editor or traces:admin (403 for a team viewer). */
  async retry(who: Caller, id: string): Promise<z.infer<typeof tracing.RetryResult>> {
    rules.evaluation.writable(who, await this.evaluations.get(id), id);
    const positions = await this.evaluations.resetFailed(id);
    if (positions.length > 0) await this.enqueue(id, positions, Date.now());
    return { evaluation_id: id, retried: positions.length };
  }

  async pause(): Promise<z.infer<typeof tracing.QueueStatus>> {
    await this.queue.queue.pause();
    return this.status();
  }

  async resume(): Promise<z.infer<typeof tracing.QueueStatus>> {
    await this.queue.queue.resume();
    return this.status();
  }

  async status(): Promise<z.infer<typeof tracing.QueueStatus>> {
    const [paused, jobs, unfinished] = await Promise.all([
      this.queue.queue.isPaused(),
      this.queue.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
      this.evaluations.unfinishedIds(),
    ]);
    // Queue-wide counts for operators, not any user's evaluations.
    const { total } = await this.evaluations.list({ all: true }, 1, 0);
    return {
      paused,
      jobs: {
        waiting: (jobs.waiting ?? 0) + (jobs.prioritized ?? 0),
        active: jobs.active ?? 0,
        delayed: jobs.delayed ?? 0,
        failed: jobs.failed ?? 0,
        completed: jobs.completed ?? 0,
      },
      evaluations: { running: unfinished.length, completed: total - unfinished.length },
    };
  }

  /** The unfinished evaluations the caller may read. */
  async active(who: Caller): Promise<z.infer<typeof tracing.ActiveEvaluations>> {
    // Filtered in the query: a global first page of unfinished ids could leave out the caller's own.
    const rows = await this.evaluations.listUnfinished(rules.evaluation.readScope(who), 500);
    return { paused: await this.queue.queue.isPaused(), evaluations: await this.views(rows) };
  }

  private async views(rows: EvaluationRow[]): Promise<Evaluation[]> {
    const ids = rows.map((row) => row.id);
    const [counts, summaries, paused] = await Promise.all([this.evaluations.counts(ids), this.evaluations.summaries(ids), this.queue.queue.isPaused()]);
    return rows.map((row) => {
      const count: Counts = counts.get(row.id) ?? { total: row.total, pending: 0, running: 0, succeeded: 0, failed: 0 };
      const unfinished = count.pending + count.running > 0;
      const metrics = row.metrics as MetricSpec[];
      const summary = summaries.get(row.id) ?? {};
      const target = row.target as Target | null;
      return {
        id: row.id,
        name: row.name,
        dataset_id: row.datasetId,
        metrics,
        target: target ? { url: target.url, method: target.method } : null,
        status: unfinished ? (paused ? 'paused' : 'running') : count.failed > 0 ? 'completed_with_errors' : 'completed',
        counts: count,
        summary: Object.fromEntries(
          metrics.flatMap((spec) => {
            const name = metricName(spec);
            const mean: Array<[string, number | null]> = [[name, summary[name] ?? null]];
            return isJudge(spec) ? [...mean, [`${name}.pass_rate`, summary[`${name}.pass_rate`] ?? null]] : mean;
          }),
        ),
        created_at: row.createdAt.toISOString(),
        completed_at: row.completedAt?.toISOString() ?? null,
        owner: row.owner,
        team: row.team,
      };
    });
  }

  /** The job of one example. Throws to retry; the last attempt's failure is recorded as the example's error. */
  async process(payload: z.infer<typeof evaluationQueue.payload>, job: Job): Promise<void> {
    const evaluation = await this.evaluations.get(payload.evaluationId);
    if (!evaluation) throw new UnrecoverableError(`evaluation ${payload.evaluationId} no longer exists`);
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await this.evaluations.start(evaluation.id, payload.index);
    try {
      await this.scoreExample(evaluation, payload.index);
    } catch (error) {
      const permanent = error instanceof UnrecoverableError || ((error instanceof TargetError || error instanceof JudgeError) && error.permanent);
      await this.evaluations.fail(evaluation.id, payload.index, (error as Error).message, final || permanent);
      if (final || permanent) await this.evaluations.completeIfDone(evaluation.id);
      throw permanent && !(error instanceof UnrecoverableError) ? new UnrecoverableError((error as Error).message) : error;
    }
    await this.evaluations.completeIfDone(evaluation.id);
  }

  private async scoreExample(evaluation: EvaluationRow, index: number): Promise<void> {
    const example = (await this.datasets.example(evaluation.datasetId, index)) as Example | undefined;
    if (!example) throw new UnrecoverableError(`example ${index} is missing from dataset ${evaluation.datasetId}`);
    const target = evaluation.target as Target | null;
    let output: unknown;
    let latencyMs: number | null = null;
    let traceId: string | null = null;
    if (target) {
      traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const startNano = BigInt(Date.now()) * 1_000_000n;
      let failure: Error | undefined;
      try {
        const answer = await callTarget(target, example.input, `00-${traceId}-${spanId}-01`, this.options.allowPrivateTargets);
        output = answer.output;
        latencyMs = answer.latencyMs;
      } catch (error) {
        failure = error as Error;
      }
      await this.recordSpan(evaluation, index, traceId, spanId, startNano, target, example.input, output, failure);
      if (failure) throw failure;
    } else {
      if (example.output === undefined) throw new UnrecoverableError('the example has no output and the evaluation no target');
      output = example.output;
      const linked = example.metadata?.trace_id;
      traceId = typeof linked === 'string' && HEX_TRACE.test(linked) ? linked : null;
    }
    const usage = traceId ? await this.spans.traceUsage(traceId) : { tokens: null, rootDurationNano: null };
    if (latencyMs === null && usage.rootDurationNano !== null) latencyMs = Number(usage.rootDurationNano) / 1e6;
    const metrics = evaluation.metrics as MetricSpec[];
    const scores: Record<string, number | null> = {};
    const judgments: Record<string, Omit<Judgment, 'call'>> = {};
    for (const spec of metrics) {
      const name = metricName(spec);
      if (isJudge(spec)) {
        const judgment = await this.judgeExample(evaluation, index, spec, {
          input: example.input,
          output,
          expected: example.expected_output,
          metadata: example.metadata,
        });
        const { call: _call, ...kept } = judgment;
        judgments[name] = kept;
        scores[name] = judgment.score;
      } else if (name === 'regex' && regexPattern(spec, { expected: example.expected_output, metadata: example.metadata }) === undefined) scores[name] = null;
      else scores[name] = score(spec, { output, expected: example.expected_output, metadata: example.metadata, latencyMs, tokens: usage.tokens });
    }
    await this.evaluations.succeed(evaluation.id, index, {
      output,
      scores,
      judgments: Object.keys(judgments).length > 0 ? judgments : null,
      traceId,
      latencyMs,
    });
  }

  /** One LLM-judge grade; the judge call is stored as a model-call span of the evaluations project. */
  private async judgeExample(
    evaluation: EvaluationRow,
    index: number,
    spec: tracing.LlmJudgeMetric,
    values: { input: unknown; output: unknown; expected: unknown; metadata: unknown },
  ): Promise<Judgment> {
    const startNano = BigInt(Date.now()) * 1_000_000n;
    try {
      const judgment = await this.options.judge.grade(spec, values);
      await this.recordJudgeSpan(evaluation, index, spec, startNano, judgment);
      return judgment;
    } catch (error) {
      await this.recordJudgeSpan(evaluation, index, spec, startNano, undefined, error as Error);
      throw error;
    }
  }

  private async recordJudgeSpan(
    evaluation: EvaluationRow,
    index: number,
    spec: tracing.LlmJudgeMetric,
    startNano: bigint,
    judgment?: Judgment,
    failure?: Error,
  ): Promise<void> {
    const text = (value: string) => ({ stringValue: value.slice(0, 10_000) });
    const int = (value: number | null) => (value === null ? [] : [{ intValue: String(value) }]);
    const attributes = [
      { key: 'evaluation.id', value: { stringValue: evaluation.id } },
      { key: 'evaluation.example.index', value: { intValue: String(index) } },
      { key: 'evaluation.metric', value: { stringValue: spec.name } },
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: spec.model } },
      ...(judgment
        ? [
            { key: 'gen_ai.prompt', value: text(judgment.call.prompt) },
            { key: 'gen_ai.completion', value: text(judgment.call.completion) },
            ...(judgment.call.responseModel ? [{ key: 'gen_ai.response.model', value: text(judgment.call.responseModel) }] : []),
            ...int(judgment.call.inputTokens).map((value) => ({ key: 'gen_ai.usage.input_tokens', value })),
            ...int(judgment.call.outputTokens).map((value) => ({ key: 'gen_ai.usage.output_tokens', value })),
            { key: 'evaluation.score', value: { doubleValue: judgment.score } },
          ]
        : []),
    ];
    await this.ingest
      .ingest({
        resourceSpans: [
          {
            resource: {
              attributes: [
                { key: 'service.name', value: { stringValue: 'tracing' } },
                { key: 'openinference.project.name', value: { stringValue: EVALUATION_PROJECT } },
              ],
            },
            scopeSpans: [
              {
                scope: { name: 'tracing.evaluations' },
                spans: [
                  {
                    traceId: b64(randomBytes(16).toString('hex')),
                    spanId: b64(randomBytes(8).toString('hex')),
                    name: `judge ${spec.name}`,
                    kind: 3,
                    startTimeUnixNano: startNano.toString(),
                    endTimeUnixNano: (BigInt(Date.now()) * 1_000_000n).toString(),
                    attributes,
                    status: failure ? { code: 2, message: failure.message } : { code: 1 },
                  },
                ],
              },
            ],
          },
        ],
      })
      .catch(() => undefined); // the grade does not depend on the span being stored
  }

  /** The evaluation's own span for a target call, written to this service's store like any other. */
  private async recordSpan(
    evaluation: EvaluationRow,
    index: number,
    traceId: string,
    spanId: string,
    startNano: bigint,
    target: Target,
    input: unknown,
    output: unknown,
    failure?: Error,
  ): Promise<void> {
    const text = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, 10_000);
    const attributes = [
      { key: 'evaluation.id', value: { stringValue: evaluation.id } },
      { key: 'evaluation.name', value: { stringValue: evaluation.name } },
      { key: 'evaluation.example.index', value: { intValue: String(index) } },
      { key: 'http.url', value: { stringValue: target.url } },
      { key: 'input.value', value: { stringValue: text(input) } },
      ...(output !== undefined ? [{ key: 'output.value', value: { stringValue: text(output) } }] : []),
    ];
    await this.ingest
      .ingest({
        resourceSpans: [
          {
            resource: {
              attributes: [
                { key: 'service.name', value: { stringValue: 'tracing' } },
                { key: 'openinference.project.name', value: { stringValue: EVALUATION_PROJECT } },
              ],
            },
            scopeSpans: [
              {
                scope: { name: 'tracing.evaluations' },
                spans: [
                  {
                    traceId: b64(traceId),
                    spanId: b64(spanId),
                    name: 'evaluation.example',
                    kind: 3,
                    startTimeUnixNano: startNano.toString(),
                    endTimeUnixNano: (BigInt(Date.now()) * 1_000_000n).toString(),
                    attributes,
                    status: failure ? { code: 2, message: failure.message } : { code: 1 },
                  },
                ],
              },
            ],
          },
        ],
      })
      .catch(() => undefined); // the score does not depend on the span being stored
  }
}

function resultView(row: ResultRow, example: Example | undefined): z.infer<typeof tracing.EvaluationResult> {
  return {
    index: row.position,
    status: row.status as z.infer<typeof tracing.EvaluationResult>['status'],
    attempts: row.attempts,
    input: example?.input ?? null,
    ...(example?.expected_output !== undefined && { expected_output: example.expected_output }),
    ...(row.output !== null && row.output !== undefined && { output: row.output }),
    scores: (row.scores as Record<string, number | null> | null) ?? null,
    judgments: (row.judgments as z.infer<typeof tracing.EvaluationResult>['judgments']) ?? null,
    trace_id: row.traceId,
    latency_ms: row.latencyMs,
    error: row.error,
  };
}
