import type { Logger } from '@platform/telemetry';
import type { ProcessRecordsRepository } from './process-records.repository';
import type { RegistryInstance } from './instance';
import { isRunning, signalGroup } from './process-info';
import { removeWorkDir } from './stdio-launch';

export interface ProcessRecord {
  pid: number;
  startTicks: bigint;
  connectionId: string;
  command: string;
  workDir: string;
}

/**
 * Every stdio server a registry starts is written down (host, pid, start time, owner), so that a
 * registry that died without stopping them reaps them on its next start.
 */
export class ProcessRecords {
  constructor(
    private readonly store: ProcessRecordsRepository,
    private readonly instance: RegistryInstance,
    private readonly workRoot: string,
    private readonly logger: Logger,
  ) {}

  async add(record: ProcessRecord): Promise<void> {
    await this.store.insert({ ...record, host: this.instance.host, instanceId: this.instance.id });
  }

  async remove(pid: number, startTicks: bigint): Promise<void> {
    await this.store.delete(this.instance.host, pid, startTicks);
  }

  /** Kills the process groups recorded on this host by instances that are no longer alive. */
  async reapOrphans(): Promise<number> {
    const live = new Set(await this.instance.liveInstances());
    live.add(this.instance.id);
    const records = await this.store.left(this.instance.host, [...live]);
    let reaped = 0;
    for (const record of records) {
      if (isRunning(record.pid, record.startTicks)) {
        signalGroup(record.pid, 'SIGKILL');
        reaped += 1;
        this.logger.warn(
          { pid: record.pid, connectionId: record.connectionId, instanceId: record.instanceId },
          'reaped a stdio server left by a previous registry',
        );
      }
      removeWorkDir(record.workDir, this.workRoot);
      await this.store.delete(record.host, record.pid, record.startTicks);
    }
    return reaped;
  }
}
