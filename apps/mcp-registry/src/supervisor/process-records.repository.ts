import type { Db } from '../database';

export interface StoredProcess {
  host: string;
  instanceId: string;
  pid: number;
  startTicks: bigint;
  connectionId: string;
  command: string;
  workDir: string;
}

/** The stdio servers this registry's instances started, by host. */
export class ProcessRecordsRepository {
  constructor(private readonly db: Db) {}

  async insert(record: StoredProcess): Promise<void> {
    await this.db.supervisedProcess.create({ data: record });
  }

  async delete(host: string, pid: number, startTicks: bigint): Promise<void> {
    await this.db.supervisedProcess.deleteMany({ where: { host, pid, startTicks } });
  }

  /** Processes recorded on `host` by instances other than `liveInstances`. */
  left(host: string, liveInstances: string[]): Promise<StoredProcess[]> {
    return this.db.supervisedProcess.findMany({ where: { host, instanceId: { notIn: liveInstances } } });
  }

  /** How many records name this pid (tests). */
  count(pid: number): Promise<number> {
    return this.db.supervisedProcess.count({ where: { pid } });
  }
}
