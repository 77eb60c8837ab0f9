import type { registry } from '@platform/contracts';
import type { CertificationWithAgent } from './certifications.repository';

export function certificationBody(row: CertificationWithAgent): registry.Certification {
  return {
    id: row.id,
    namespace: row.agent.namespace,
    name: row.agent.name,
    version: row.version,
    status: row.status as registry.Certification['status'],
    requestedBy: row.requestedBy,
    requestedAt: row.requestedAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    checks: row.checks as registry.CertificationCheck[],
    error: row.error,
  };
}
