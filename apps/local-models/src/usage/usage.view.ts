import type { localModels } from '@platform/contracts';
import type { UsageRecord } from '../generated/prisma/client';

export function usageView(row: UsageRecord): localModels.UsageRecord {
  return {
    id: row.id,
    at: row.at.toISOString(),
    subject: row.subject,
    endpoint: row.endpoint,
    model: row.model,
    backend: row.backend as localModels.UsageRecord['backend'],
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    cost: row.cost,
    durationMs: row.durationMs,
    status: row.status as localModels.UsageRecord['status'],
    requestId: row.requestId,
  };
}
