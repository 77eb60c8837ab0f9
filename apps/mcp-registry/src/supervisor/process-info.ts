import { readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks; USER_HZ is 100 on every mainstream architecture. */
const CLOCK_TICKS_PER_SECOND = 100;

interface StatFields {
  startTicks: bigint;
  cpuTicks: number;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function readStat(pid: number): StatFields | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, starttime 22.
    if (fields[0] === 'Z') return undefined;
    return { cpuTicks: Number(fields[11]) + Number(fields[12]), startTicks: BigInt(fields[19]) };
  } catch {
    return undefined;
  }
}

/** When the process started (ticks since boot): tells our process apart from a reused pid. */
export function processStartTicks(pid: number): bigint | undefined {
  return readStat(pid)?.startTicks;
}

export function isRunning(pid: number, startTicks?: bigint): boolean {
  const stat = readStat(pid);
  return stat !== undefined && (startTicks === undefined || stat.startTicks === startTicks);
}

/** Resident memory in bytes, from /proc/<pid>/status. */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'unknown';
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** CPU use in percent of one core between two samples of the same process. */
export class CpuSampler {
  private last?: { ticks: number; at: number };

  constructor(private readonly pid: number) {}

  sample(): number {
    const stat = readStat(this.pid);
    if (!stat) return 0;
    const now = Date.now();
    const previous = this.last;
    this.last = { ticks: stat.cpuTicks, at: now };
    if (!previous || now <= previous.at) return 0;
    const cpuSeconds = (stat.cpuTicks - previous.ticks) / CLOCK_TICKS_PER_SECOND;
    return Math.round((cpuSeconds / ((now - previous.at) / 1000)) * 1000) / 10;
  }
}

/** Signals a whole process group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
