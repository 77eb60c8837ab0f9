import type { registry } from '@platform/contracts';
import type { Db } from '../database';
import type { Certification } from '../generated/prisma/client';
import { lockAgent, refreshAgent } from '../agent-state.repository';

export type CertificationWithAgent = Certification & { agent: { namespace: string; name: string } };

const withAgent = { agent: { select: { namespace: true, name: true } } } as const;

/** Certification requests and their reports, and the stored manifests they check. */
export class CertificationsRepository {
  constructor(private readonly db: Db) {}

  /** The versions an agent has published (not unpublished). */
  async publishedVersions(agentId: string): Promise<string[]> {
    const rows = await this.db.agentVersion.findMany({ where: { agentId, unpublishedAt: null }, select: { version: true } });
    return rows.map((row) => row.version);
  }

  /** Whether a version exists, and when it was unpublished. */
  findVersionState(agentId: string, version: string) {
    return this.db.agentVersion.findUnique({ where: { agentId_version: { agentId, version } }, select: { unpublishedAt: true } });
  }

  /** The stored manifest of a version, to check. */
  findManifest(agentId: string, version: string) {
    return this.db.agentVersion.findUnique({
      where: { agentId_version: { agentId, version } },
      select: { manifestBytes: true, format: true, unpublishedAt: true },
    });
  }

  create(agentId: string, version: string, requestedBy: string): Promise<CertificationWithAgent> {
    return this.db.certification.create({ data: { agentId, version, requestedBy }, include: withAgent });
  }

  findById(id: string) {
    return this.db.certification.findUnique({ where: { id } });
  }

  async markRunning(id: string): Promise<void> {
    await this.db.certification.update({ where: { id }, data: { status: 'running', startedAt: new Date() } });
  }

  async markNotQueued(id: string): Promise<void> {
    await this.db.certification.update({ where: { id }, data: { status: 'error', error: 'the job could not be queued', completedAt: new Date() } });
  }

  /** Records the report and recomputes whether the agent is certified, with the agent locked. */
  async complete(id: string, agentId: string, passed: boolean, checks: registry.CertificationCheck[]): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, agentId);
      await tx.certification.update({ where: { id }, data: { status: passed ? 'passed' : 'failed', checks, completedAt: new Date() } });
      await refreshAgent(tx, agentId);
    });
  }

  /** Marks a certification that cannot finish, unless it already finished. */
  async fail(id: string, message: string): Promise<void> {
    await this.db.certification.updateMany({
      where: { id, status: { in: ['queued', 'running'] } },
      data: { status: 'error', error: message, completedAt: new Date() },
    });
  }

  async list(query: registry.CertificationListQuery): Promise<{ rows: CertificationWithAgent[]; total: number }> {
    const where = {
      ...(query.status && { status: query.status }),
      ...((query.namespace || query.name) && { agent: { ...(query.namespace && { namespace: query.namespace }), ...(query.name && { name: query.name }) } }),
    };
    const [rows, total] = await Promise.all([
      this.db.certification.findMany({ where, include: withAgent, orderBy: [{ requestedAt: 'desc' }, { id: 'asc' }], take: query.limit, skip: query.offset }),
      this.db.certification.count({ where }),
    ]);
    return { rows, total };
  }
}
