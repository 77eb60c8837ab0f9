import type { localModels } from '@platform/contracts';
import type { Db } from '../database';

export interface AccessRow {
  subject: string;
  models: string[];
  monthlyTokenBudget: bigint | null;
  fallbacks: unknown;
  updatedBy: string;
  updatedAt: Date;
}

export interface UsageRow {
  promptTokens: bigint;
  completionTokens: bigint;
  requests: number;
}

/** The only code touching the model-access tables. */
export class ModelAccessRepository {
  constructor(private readonly db: Db) {}

  async find(subject: string, month: string): Promise<{ access: AccessRow | null; usage: UsageRow | null }> {
    const [access, usage] = await Promise.all([
      this.db.modelAccess.findUnique({ where: { subject } }),
      this.db.modelUsage.findUnique({ where: { subject_month: { subject, month } }, select: { promptTokens: true, completionTokens: true, requests: true } }),
    ]);
    return { access, usage };
  }

  save(subject: string, request: localModels.ModelAccessRequest, updatedBy: string): Promise<AccessRow> {
    const data = {
      models: request.models,
      monthlyTokenBudget: request.monthlyTokenBudget === null ? null : BigInt(request.monthlyTokenBudget),
      fallbacks: request.fallbacks ?? {},
      updatedBy,
    };
    return this.db.modelAccess.upsert({ where: { subject }, create: { subject, ...data }, update: data });
  }

  async remove(subject: string): Promise<boolean> {
    const { count } = await this.db.modelAccess.deleteMany({ where: { subject } });
    return count > 0;
  }

  async addUsage(subject: string, month: string, promptTokens: number, completionTokens: number, requests: number): Promise<void> {
    await this.db.modelUsage.upsert({
      where: { subject_month: { subject, month } },
      create: { subject, month, promptTokens: BigInt(promptTokens), completionTokens: BigInt(completionTokens), requests },
      update: { promptTokens: { increment: BigInt(promptTokens) }, completionTokens: { increment: BigInt(completionTokens) }, requests: { increment: requests } },
    });
  }
}
