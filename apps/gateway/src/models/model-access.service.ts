import type { localModels } from '@platform/contracts';
import { ApiError, forbidden, notFound } from '@platform/http';
import type { Logger } from '@platform/telemetry';
import type { AccessRow, ModelAccessRepository } from './model-access.repository';
import { matchesPattern } from './upstreams';

/** A caller's access as the route applies it; no record: every model, no budget. */
export interface Policy {
  record: AccessRow | null;
  month: string;
  promptTokens: number;
  completionTokens: number;
  requests: number;
  loadedAt: number;
}

const monthOf = (date = new Date()) => date.toISOString().slice(0, 7);

/**
 * Per-caller allow-lists and monthly token budgets (the token's `sub`: a user, or `service:<name>`
 * for an API key). Policies are cached per caller for `ttlMs`; this replica's own calls count at once,
 * other replicas' within `ttlMs` (plus `flushMs`). Usage is written to Postgres in batches every
 * `flushMs`, off the answers' path (and on shutdown).
 */
export class ModelAccessService {
  /** Per caller: the policy loading, and once loaded the policy itself (what this replica's calls add to). */
  private readonly cache = new Map<string, { loading: Promise<Policy>; value?: Policy }>();
  /** Tokens counted and not yet in Postgres, per caller and month: written in batches every `flushMs`. */
  private readonly pending = new Map<string, Delta>();
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repository: ModelAccessRepository,
    private readonly logger: Logger,
    private readonly options: { ttlMs: number; maxCached: number; flushMs: number },
  ) {}

  /** The caller's policy (cached), with the tokens used this month. */
  policy(subject: string): Promise<Policy> {
    const month = monthOf();
    const cached = this.cache.get(subject);
    if (!cached) return this.load(subject, month);
    // A loaded policy of this month within the TTL is reused; a loading one is shared.
    const { value } = cached;
    if (!value) return cached.loading;
    return value.month === month && Date.now() - value.loadedAt < this.options.ttlMs ? Promise.resolve(value) : this.load(subject, month);
  }

  allows(policy: Policy, model: string): boolean {
    return policy.record === null || policy.record.models.some((pattern) => matchesPattern(pattern, model));
  }

  /** 403 `model_not_allowed` or 429 `budget_exceeded`, else the policy. */
  async authorize(subject: string, model: string): Promise<Policy> {
    const policy = await this.policy(subject);
    if (!this.allows(policy, model)) {
      throw forbidden(`The model '${model}' is not allowed for ${subject}`, { param: 'model', model, allowed: policy.record?.models }, 'model_not_allowed');
    }
    const budget = policy.record?.monthlyTokenBudget;
    const used = policy.promptTokens + policy.completionTokens;
    if (budget !== null && budget !== undefined && used >= Number(budget)) {
      throw new ApiError(
        429,
        'rate_limit_error',
        'budget_exceeded',
        `The monthly token budget of ${subject} is spent: ${used} of ${budget} tokens used in ${policy.month}; it renews on the 1st (UTC)`,
        { budget: Number(budget), used, month: policy.month },
      );
    }
    return policy;
  }

  /** The caller's own fallbacks of a model (before the configured ones). */
  fallbacksOf(policy: Policy, model: string): string[] {
    const fallbacks = (policy.record?.fallbacks ?? {}) as Record<string, string[]>;
    return fallbacks[model] ?? fallbacks[model.replace(/:latest$/, '')] ?? [];
  }

  /** Counts an answer's tokens: in this replica's cached policy at once, in Postgres after. */
  record(subject: string, promptTokens: number, completionTokens: number): void {
    const month = monthOf();
    // A policy still loading reads the pending counts below when it settles: only a loaded one is added to.
    const policy = this.cache.get(subject)?.value;
    if (policy?.month === month) {
      policy.promptTokens += promptTokens;
      policy.completionTokens += completionTokens;
      policy.requests += 1;
    }
    const key = `${subject}\n${month}`;
    const delta = this.pending.get(key) ?? { subject, month, promptTokens: 0, completionTokens: 0, requests: 0 };
    delta.promptTokens += promptTokens;
    delta.completionTokens += completionTokens;
    delta.requests += 1;
    this.pending.set(key, delta);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushMs);
  }

  /** Writes the counted tokens (one upsert per caller and month); what fails stays for the next flush. */
  flush(): Promise<void> {
    this.flushing ??= this.writePending().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending.clear();
    const results = await Promise.allSettled(
      batch.map((delta) => this.repository.addUsage(delta.subject, delta.month, delta.promptTokens, delta.completionTokens, delta.requests)),
    );
    const failed = batch.filter((_, index) => results[index].status === 'rejected');
    if (failed.length === 0) return;
    this.logger.warn({ err: (results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason, callers: failed.length }, 'model usage not written yet');
    for (const delta of failed) this.merge(delta);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushMs * 10);
  }

  private merge(delta: Delta): void {
    const key = `${delta.subject}\n${delta.month}`;
    const kept = this.pending.get(key);
    if (!kept) return void this.pending.set(key, delta);
    kept.promptTokens += delta.promptTokens;
    kept.completionTokens += delta.completionTokens;
    kept.requests += delta.requests;
  }

  async view(subject: string): Promise<localModels.ModelAccess> {
    const policy = await this.load(subject, monthOf());
    const record = policy.record;
    const budget = record?.monthlyTokenBudget === null || record?.monthlyTokenBudget === undefined ? null : Number(record.monthlyTokenBudget);
    const total = policy.promptTokens + policy.completionTokens;
    return {
      subject,
      models: record?.models ?? ['*'],
      monthlyTokenBudget: budget,
      fallbacks: (record?.fallbacks ?? {}) as localModels.ModelFallbacks,
      updatedBy: record?.updatedBy ?? null,
      updatedAt: record?.updatedAt.toISOString() ?? null,
      usage: {
        month: policy.month,
        promptTokens: policy.promptTokens,
        completionTokens: policy.completionTokens,
        totalTokens: total,
        requests: policy.requests,
        remainingTokens: budget === null ? null : Math.max(0, budget - total),
      },
    };
  }

  async set(subject: string, request: localModels.ModelAccessRequest, by: string): Promise<localModels.ModelAccess> {
    await this.repository.save(subject, request, by);
    this.cache.delete(subject);
    return this.view(subject);
  }

  async remove(subject: string): Promise<void> {
    if (!(await this.repository.remove(subject))) throw notFound(`No model access is set for ${subject}`, { subject });
    this.cache.delete(subject);
  }

  /** On shutdown: the timer stops and what is counted is written. */
  async drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  private load(subject: string, month: string): Promise<Policy> {
    // A write in flight is waited for, and what is not written yet added: the policy counts both.
    const loading = (this.flushing ?? Promise.resolve())
      .then(() => this.repository.find(subject, month))
      .then(({ access, usage }) => {
        const unwritten = this.pending.get(`${subject}\n${month}`);
        return {
          record: access,
          month,
          promptTokens: Number(usage?.promptTokens ?? 0) + (unwritten?.promptTokens ?? 0),
          completionTokens: Number(usage?.completionTokens ?? 0) + (unwritten?.completionTokens ?? 0),
          requests: (usage?.requests ?? 0) + (unwritten?.requests ?? 0),
          loadedAt: Date.now(),
        };
      });
    const entry: { loading: Promise<Policy>; value?: Policy } = { loading };
    this.cache.delete(subject);
    this.cache.set(subject, entry);
    loading.then(
      (policy) => (entry.value = policy),
      () => this.cache.get(subject) === entry && this.cache.delete(subject),
    );
    if (this.cache.size > this.options.maxCached) this.cache.delete(this.cache.keys().next().value as string);
    return loading;
  }
}

interface Delta {
  subject: string;
  month: string;
  promptTokens: number;
  completionTokens: number;
  requests: number;
}
