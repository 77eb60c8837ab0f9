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
 * other replicas' within `ttlMs`. Usage is added to Postgres after each answer, off its path.
 */
export class ModelAccessService {
  private readonly cache = new Map<string, Promise<Policy>>();
  /** Each caller's usage writes in flight: a policy loaded meanwhile waits for them, so it counts them. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    private readonly repository: ModelAccessRepository,
    private readonly logger: Logger,
    private readonly options: { ttlMs: number; maxCached: number },
  ) {}

  /** The caller's policy (cached), with the tokens used this month. */
  policy(subject: string): Promise<Policy> {
    const month = monthOf();
    const cached = this.cache.get(subject);
    if (cached) {
      // A settled policy of this month, loaded within the TTL, is reused; a pending one is shared.
      return cached.then((policy) => (policy.month === month && Date.now() - policy.loadedAt < this.options.ttlMs ? policy : this.load(subject, month)));
    }
    return this.load(subject, month);
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
    void this.cache.get(subject)?.then((policy) => {
      if (policy.month !== month) return;
      policy.promptTokens += promptTokens;
      policy.completionTokens += completionTokens;
      policy.requests += 1;
    });
    const previous = this.writes.get(subject) ?? Promise.resolve();
    const write: Promise<void> = previous
      .then(() => this.repository.addUsage(subject, month, promptTokens, completionTokens))
      .catch((error: unknown) => this.logger.warn({ err: error, subject, promptTokens, completionTokens }, 'model usage not recorded'))
      .finally(() => this.writes.get(subject) === write && this.writes.delete(subject));
    this.writes.set(subject, write);
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

  /** Waits for the usage writes in flight (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }

  private load(subject: string, month: string): Promise<Policy> {
    const loading = (this.writes.get(subject) ?? Promise.resolve()).then(() => this.repository.find(subject, month)).then(({ access, usage }) => ({
      record: access,
      month,
      promptTokens: Number(usage?.promptTokens ?? 0),
      completionTokens: Number(usage?.completionTokens ?? 0),
      requests: usage?.requests ?? 0,
      loadedAt: Date.now(),
    }));
    this.cache.delete(subject);
    this.cache.set(subject, loading);
    loading.catch(() => this.cache.get(subject) === loading && this.cache.delete(subject));
    if (this.cache.size > this.options.maxCached) this.cache.delete(this.cache.keys().next().value as string);
    return loading;
  }
}
