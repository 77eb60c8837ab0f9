import type { registry } from '@platform/contracts';
import type { Db } from '../database';
import type { Certification, Prisma } from '../generated/prisma/client';
import type { EventsRepository } from '../events/events.repository';

export type CertificationRow = Certification;
const TERMINAL = ['passed', 'failed', 'error'];

/** The only code that touches `master.Certification` (a mirror of the registry's certifications). */
export class CertificationRepository {
  constructor(
    private readonly db: Db,
    private readonly events: EventsRepository,
  ) {}

  find(id: string): Promise<CertificationRow | null> {
    return this.db.certification.findUnique({ where: { id } });
  }

  create(
    agentId: string,
    certification: registry.Certification,
    requestedBy: string,
    owned: { owner: string | null; team: string | null },
  ): Promise<CertificationRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.certification.create({
        data: {
          id: certification.id,
          agentId,
          namespace: certification.namespace,
          name: certification.name,
          version: certification.version,
          status: certification.status,
          checks: certification.checks as Prisma.InputJsonValue,
          error: certification.error,
          requestedBy,
          ...owned,
        },
      });
      await tx.agent.updateMany({ where: { id: agentId }, data: { certificationId: row.id, certificationStatus: row.status } });
      await this.events.record({ type: 'certification.requested', subject: row.id, actor: requestedBy, data: { agentId, version: row.version } }, tx);
      return row;
    });
  }

  /** Mirrors the registry's state; the first time it is final, the result is recorded as an event. */
  update(previous: CertificationRow, certification: registry.Certification): Promise<CertificationRow> {
    return this.db.$transaction(async (tx) => {
      const finished = TERMINAL.includes(certification.status);
      const row = await tx.certification.update({
        where: { id: previous.id },
        data: {
          status: certification.status,
          checks: certification.checks as Prisma.InputJsonValue,
          error: certification.error,
          ...(finished && !previous.completedAt && { completedAt: certification.completedAt ? new Date(certification.completedAt) : new Date() }),
        },
      });
      await tx.agent.updateMany({ where: { id: previous.agentId, certificationId: previous.id }, data: { certificationStatus: row.status } });
      if (finished && !TERMINAL.includes(previous.status)) {
        await this.events.record(
          {
            type: 'certification.completed',
            subject: row.id,
            data: {
              agentId: row.agentId,
              status: row.status,
              failedChecks: certification.checks.filter((check) => check.outcome === 'fail').map((check) => check.id),
            },
          },
          tx,
        );
      }
      return row;
    });
  }
}
