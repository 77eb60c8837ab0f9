import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';
import type { PolicyDefinition } from './policies';

/** The policies in force, recorded in `master.Policy` each time the service starts. */
export class GovernanceRepository {
  constructor(private readonly db: Db) {}

  /** Upserts these policies and disables recorded ones that are no longer configured. */
  async record(policies: PolicyDefinition[]): Promise<void> {
    await this.db.$transaction([
      ...policies.map((policy) => {
        const data = {
          source: policy.source,
          name: policy.name,
          description: policy.description,
          severity: policy.severity,
          appliesTo: (policy.appliesTo ?? undefined) as Prisma.InputJsonValue | undefined,
          rule: policy.rule as Prisma.InputJsonValue,
          path: policy.path,
          message: policy.message,
          enabled: true,
        };
        return this.db.policy.upsert({ where: { id: policy.id }, create: { id: policy.id, ...data }, update: data });
      }),
      this.db.policy.updateMany({ where: { id: { notIn: policies.map((policy) => policy.id) } }, data: { enabled: false } }),
    ]);
  }
}
