import type { registry } from '@platform/contracts';
import { notFound, serviceUnavailable } from '@platform/http';
import { type TypedQueue } from '@platform/queues';
import { type Logger } from '@platform/telemetry';
import semver from 'semver';
import type { Db } from '../database';
import type { Caller } from '../access';
import { lockAgent, refreshAgent } from '../agents/agent-state';
import type { AgentsService } from '../agents/agents.service';
import type { Certification } from '../generated/prisma/client';
import { certificationPassed, runCertificationChecks } from './certification-checks';
import type { CertificationQueue } from './certification-queue';

/** Rejects when `work` has not settled within `ms` (BullMQ waits for a Redis connection indefinitely). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

type WithAgent = Certification & { agent: { namespace: string; name: string } };

export function certificationBody(row: WithAgent): registry.Certification {
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

const withAgent = { agent: { select: { namespace: true, name: true } } } as const;

/** Certification requests (queued as BullMQ jobs), their processing and their reports. */
export class CertificationsService {
  constructor(
    private readonly db: Db,
    private readonly agents: AgentsService,
    private readonly queue: TypedQueue<CertificationQueue['payload']>,
    private readonly logger: Logger,
    /** How long a request waits for Redis to take the job before answering 503. */
    private readonly queueTimeoutMs = 3000,
  ) {}

  /** Records a request for the given version (default: latest, else the highest pre-release) and queues the job. */
  async request(who: Caller, namespace: string, name: string, body: registry.CertificationRequestBody): Promise<registry.Certification> {
    const agent = await this.agents.get(namespace, name);
    let version = body.version ?? agent.latestVersion;
    if (!version) {
      const newest = await this.db.agentVersion.findMany({ where: { agentId: agent.id, unpublishedAt: null }, select: { version: true } });
      if (newest.length === 0) throw notFound(`Agent ${namespace}/${name} has no published version to certify`);
      version = newest.map((row) => row.version).sort(semver.rcompare)[0];
    }
    const row = await this.db.agentVersion.findUnique({ where: { agentId_version: { agentId: agent.id, version } }, select: { unpublishedAt: true } });
    if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${namespace}/${name} not found`);
    const certification = await this.db.certification.create({ data: { agentId: agent.id, version, requestedBy: who.sub }, include: withAgent });
    try {
      await withTimeout(this.queue.add('certify', { certificationId: certification.id }, { jobId: certification.id }), this.queueTimeoutMs);
    } catch (error) {
      this.logger.error({ err: error }, 'certification job not queued');
      await this.db.certification.update({ where: { id: certification.id }, data: { status: 'error', error: 'the job could not be queued', completedAt: new Date() } });
      throw serviceUnavailable('The certification queue is unavailable; try again later');
    }
    return certificationBody(certification);
  }

  async list(query: registry.CertificationListQuery) {
    const where = {
      ...(query.status && { status: query.status }),
      ...((query.namespace || query.name) && { agent: { ...(query.namespace && { namespace: query.namespace }), ...(query.name && { name: query.name }) } }),
    };
    const [rows, total] = await Promise.all([
      this.db.certification.findMany({ where, include: withAgent, orderBy: [{ requestedAt: 'desc' }, { id: 'asc' }], take: query.limit, skip: query.offset }),
      this.db.certification.count({ where }),
    ]);
    return { items: rows.map(certificationBody), total, limit: query.limit, offset: query.offset };
  }

  /**
   * The job: runs the checks on the stored manifest and records the report; a passed
   * certification of the latest version makes the agent `certified`. Finished certifications
   * are left alone, so a redelivered job changes nothing.
   */
  async process(certificationId: string): Promise<void> {
    const certification = await this.db.certification.findUnique({ where: { id: certificationId } });
    if (!certification || ['passed', 'failed', 'error'].includes(certification.status)) return;
    await this.db.certification.update({ where: { id: certificationId }, data: { status: 'running', startedAt: new Date() } });
    const version = await this.db.agentVersion.findUnique({
      where: { agentId_version: { agentId: certification.agentId, version: certification.version } },
      select: { manifestBytes: true, format: true, unpublishedAt: true },
    });
    if (!version) {
      await this.fail(certificationId, `version ${certification.version} does not exist`);
      return;
    }
    const checks = runCertificationChecks({ manifestBytes: version.manifestBytes, format: version.format as 'json' | 'yaml', unpublished: version.unpublishedAt !== null });
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, certification.agentId);
      await tx.certification.update({
        where: { id: certificationId },
        data: { status: certificationPassed(checks) ? 'passed' : 'failed', checks, completedAt: new Date() },
      });
      await refreshAgent(tx, certification.agentId);
    });
  }

  /** Marks a certification whose job cannot finish (retries exhausted). */
  async fail(certificationId: string, message: string): Promise<void> {
    await this.db.certification.updateMany({
      where: { id: certificationId, status: { in: ['queued', 'running'] } },
      data: { status: 'error', error: message, completedAt: new Date() },
    });
  }
}
