import type { localModels, Pricing } from '@platform/contracts';
import type { Logger } from '@platform/telemetry';
import type { UsageFilter, UsageRepository, UsageRow } from './usage.repository';
import { usageView } from './usage.view';

/** What a finished call reports. */
export interface UsageEvent {
  subject: string;
  endpoint: string;
  model: string;
  backend: 'embedded' | 'ollama';
  promptTokens: number;
  completionTokens: number;
  durationMs: number;
  status: 'ok' | 'aborted';
  requestId?: string;
}

export interface UsageOptions {
  /** How often buffered records are written. */
  flushMs: number;
  /** Records kept while Postgres cannot take them; the oldest are dropped past it. */
  maxBuffered: number;
}

/**
 * Records every model call with its cost, off the request path: calls are buffered and written in
 * batches every `flushMs` (and on shutdown), so a generation never waits for Postgres.
 */
export class UsageService {
  private buffer: UsageRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly repository: UsageRepository,
    private readonly pricing: Pricing,
    private readonly logger: Logger,
    private readonly options: UsageOptions,
  ) {}

  record(event: UsageEvent): void {
    this.buffer.push({
      ...event,
      requestId: event.requestId ?? null,
      cost: this.pricing.cost(event.model, event.backend, event.promptTokens, event.completionTokens),
      at: new Date(),
    });
    if (this.buffer.length > this.options.maxBuffered) {
      const dropped = this.buffer.splice(0, this.buffer.length - this.options.maxBuffered);
      this.logger.warn({ dropped: dropped.length }, 'usage records dropped: Postgres has not taken them');
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushMs);
  }

  /** Writes what is buffered; on failure the records stay for the next attempt. One flush at a time. */
  flush(): Promise<void> {
    // `finally` runs after the assignment (a microtask later), even when there is nothing to write:
    // clearing inside the writer itself could run first and leave a settled promise here for ever.
    this.flushing ??= this.writeBuffered().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeBuffered(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, 500);
      try {
        await this.repository.insertMany(batch);
      } catch (error) {
        this.logger.warn({ err: error, records: this.buffer.length }, 'usage records not written yet');
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          void this.flush();
        }, this.options.flushMs * 10);
        return;
      }
      this.buffer.splice(0, batch.length);
    }
  }

  /** On shutdown: the timer stops and the buffer is written once more. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  async list(query: localModels.UsageQuery, subject: string | undefined): Promise<localModels.UsageList> {
    const filter: UsageFilter = {
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      model: query.model,
      subject,
    };
    const { items, total, totals, byModel } = await this.repository.page(filter, query.limit, query.offset);
    return {
      items: items.map(usageView),
      total,
      limit: query.limit,
      offset: query.offset,
      totals: {
        calls: total,
        promptTokens: totals._sum.promptTokens ?? 0,
        completionTokens: totals._sum.completionTokens ?? 0,
        cost: roundCost(totals._sum.cost ?? 0),
      },
      byModel: byModel.map((row) => ({
        model: row.model,
        calls: row._count._all,
        promptTokens: row._sum.promptTokens ?? 0,
        completionTokens: row._sum.completionTokens ?? 0,
        cost: roundCost(row._sum.cost ?? 0),
      })),
    };
  }
}

const roundCost = (cost: number) => Math.round(cost * 1e8) / 1e8;
