import type { registry } from '@platform/contracts';
import { notFound, serviceUnavailable } from '@platform/http';
import { type TypedQueue } from '@platform/queues';
import { type Logger } from '@platform/telemetry';
import semver from 'semver';
import type { Caller } from '../access';
import type { AgentsService } from '../agents/agents.service';
import { certificationPassed, runCertificationChecks } from './certification-checks';
import type { CertificationQueue } from './certification-queue';
import type { CertificationsRepository } from './certifications.repository';
import { certificationBody } from './certifications.view';

/** Rejects when `work` has not settled within `ms` (BullMQ waits for a Redis connection indefinitely). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Certification requests (queued as BullMQ jobs), their processing and their reports. */
export class CertificationsService {
  constructor(
    private readonly certifications: CertificationsRepository,
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
      const newest = await this.certifications.publishedVersions(agent.id);
      if (newest.length === 0) throw notFound(`Agent ${namespace}/${name} has no published version to certify`);
      version = newest.sort(semver.rcompare)[0];
    }
    const row = await this.certifications.findVersionState(agent.id, version);
    if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${namespace}/${name} not found`);
    const certification = await this.certifications.create(agent.id, version, who.sub);
    let abandoned = false;
    try {
      // A request made just as Redis comes back waits for the reconnect instead of failing; one
      // that gave up (503) must not be queued by a reconnect after it.
      const queued = this.queue.connected().then(() => {
        if (abandoned) throw new Error('the request gave up waiting for Redis');
        return this.queue.add('certify', { certificationId: certification.id }, { jobId: certification.id });
      });
      await withTimeout(queued, this.queueTimeoutMs);
    } catch (error) {
      abandoned = true;
      this.logger.error({ err: error }, 'certification job not queued');
      await this.certifications.markNotQueued(certification.id);
      throw serviceUnavailable('The certification queue is unavailable; try again later');
    }
    return certificationBody(certification);
  }

  async list(query: registry.CertificationListQuery) {
    const { rows, total } = await this.certifications.list(query);
    return { items: rows.map(certificationBody), total, limit: query.limit, offset: query.offset };
  }

  /**
   * The job: runs the checks on the stored manifest and records the report; a passed
   * certification of the latest version makes the agent `certified`. Finished certifications
   * are left alone, so a redelivered job changes nothing.
   */
  async process(certificationId: string): Promise<void> {
    const certification = await this.certifications.findById(certificationId);
    if (!certification || ['passed', 'failed', 'error'].includes(certification.status)) return;
    await this.certifications.markRunning(certificationId);
    const version = await this.certifications.findManifest(certification.agentId, certification.version);
    if (!version) {
      await this.fail(certificationId, `version ${certification.version} does not exist`);
      return;
    }
    const checks = runCertificationChecks({
      manifestBytes: version.manifestBytes,
      format: version.format as 'json' | 'yaml',
      unpublished: version.unpublishedAt !== null,
    });
    await this.certifications.complete(certificationId, certification.agentId, certificationPassed(checks), checks);
  }

  /** Marks a certification whose job cannot finish (retries exhausted). */
  async fail(certificationId: string, message: string): Promise<void> {
    await this.certifications.fail(certificationId, message);
  }
}
