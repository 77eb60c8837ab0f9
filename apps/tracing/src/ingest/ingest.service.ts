import type { Pricing } from '@platform/contracts';
import type { Logger } from '@platform/telemetry';
import { BufferFullError, type IngestBuffer } from './ingest-buffer';
import { decodeJson, decodeProtobuf, type OtlpRequest, type PartialSuccess } from './otlp.codec';
import { convertRequest } from './span-rows';

export type OtlpFormat = 'protobuf' | 'json';

export interface IngestCounters {
  accepted: number;
  rejected: number;
  unauthenticated: number;
}

const NS_PER_DAY = 86_400_000_000_000n;

/**
 * Ingestion: decode, validate, hand the good spans to the group-commit buffer and answer with
 * the partial success of the rest. Retention days are read through `retentionDays` (cached by it).
 */
export class IngestService {
  readonly counters: IngestCounters = { accepted: 0, rejected: 0, unauthenticated: 0 };

  constructor(
    private readonly buffer: IngestBuffer,
    private readonly retentionDays: () => Promise<number>,
    private readonly logger: Logger,
    private readonly pricing?: Pricing,
  ) {}

  decode(format: OtlpFormat, body: Buffer): OtlpRequest {
    return format === 'protobuf' ? decodeProtobuf(body) : decodeJson(body);
  }

  /** Resolves once every accepted span is committed. Throws BufferFullError when the buffer is full. */
  async ingest(request: OtlpRequest): Promise<PartialSuccess> {
    const now = BigInt(Date.now()) * 1_000_000n;
    const days = await this.retentionDays();
    const batch = convertRequest(request, { oldestNano: now - BigInt(days) * NS_PER_DAY, newestNano: now + NS_PER_DAY, pricing: this.pricing });
    if (batch.rejected > 0) this.counters.rejected += batch.rejected;
    try {
      await this.buffer.submit(batch);
    } catch (error) {
      if (error instanceof BufferFullError) this.logger.warn({ depth: this.buffer.depth }, 'ingest buffer full: export refused with 503');
      throw error;
    }
    this.counters.accepted += batch.spans.length;
    return { rejectedSpans: batch.rejected, errorMessage: batch.reasons.length ? `${batch.rejected} span(s) rejected: ${batch.reasons.join('; ')}` : '' };
  }
}
