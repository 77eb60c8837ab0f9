import type { localModels } from '@platform/contracts';
import type { StoredUsageRecord } from './usage.repository';

export function usageView(row: StoredUsageRecord): localModels.UsageRecord {
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
