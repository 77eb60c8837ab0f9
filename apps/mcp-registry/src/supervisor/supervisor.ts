import type { Logger } from '@platform/telemetry';
import { McpSession, type SessionPolicy, type SessionTarget } from './mcp-session';
import type { ProcessRecords } from './process-records';

interface Entry {
  target: SessionTarget;
  session?: McpSession;
  opening?: Promise<McpSession>;
  restarts: number;
  /** Restarts in a row that failed or died young: the exponent of the backoff. */
  failures: number;
  timer?: NodeJS.Timeout;
  stopped: boolean;
  openTimeoutMs: number;
  lastUsedAt: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A session that lived this long resets the backoff. */
const STABLE_MS = 30_000;

export interface SessionDiagnostics {
  processRunning: boolean;
  memoryBytes?: number;
  cpuUsage: number;
  pid: number | null;
  restarts: number;
}

/**
 * Keeps one MCP session per connection this process works with. stdio servers that die are
 * restarted with exponential backoff until their connection is stopped; every process is ended
 * on stop, and recorded while it runs so a later registry can reap it.
 */
export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private shuttingDown = false;
  private readonly idleTimer?: NodeJS.Timeout;

  /** `idleMs`: a session nothing used for this long is closed (0 keeps sessions until stopped). */
  constructor(
    private readonly policy: SessionPolicy,
    private readonly records: ProcessRecords | undefined,
    private readonly logger: Logger,
    private readonly idleMs = 0,
  ) {
    if (idleMs > 0) {
      this.idleTimer = setInterval(
        () => void this.closeIdle().catch((error: unknown) => this.logger.warn({ err: error }, 'closing idle sessions failed')),
        Math.min(idleMs, 60_000),
      );
      this.idleTimer.unref();
    }
  }

  /**
   * Ends the sessions (and processes) of connections this replica no longer works with, e.g. one
   * that served a single call while another replica runs the scheduled checks.
   */
  async closeIdle(now = Date.now()): Promise<number> {
    const idle = [...this.entries.entries()].filter(([, entry]) => !entry.opening && now - entry.lastUsedAt >= this.idleMs);
    for (const [id] of idle) {
      this.logger.info({ connectionId: id }, 'closing an idle MCP session');
      await this.stop(id);
    }
    return idle.length;
  }

  /** The connection's open session, opening one (and starting its process) when there is none. */
  async session(target: SessionTarget, timeoutMs: number): Promise<McpSession> {
    if (this.shuttingDown) throw new Error('the registry is shutting down');
    let entry = this.entries.get(target.id);
    if (!entry || entry.stopped) {
      entry = { target, restarts: 0, failures: 0, stopped: false, openTimeoutMs: timeoutMs, lastUsedAt: Date.now() };
      this.entries.set(target.id, entry);
    }
    entry.lastUsedAt = Date.now();
    entry.target = target;
    entry.openTimeoutMs = timeoutMs;
    if (entry.session && !entry.session.closed) return entry.session;
    if (entry.timer) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
    }
    return this.open(entry);
  }

  private open(entry: Entry): Promise<McpSession> {
    entry.opening ??= (async () => {
      const session = new McpSession(entry.target, this.policy, {
        onUnexpectedClose: (closed) => this.onUnexpectedClose(entry, closed),
        onProcessStarted: (started) =>
          this.records?.add({
            pid: started.pid!,
            startTicks: started.startTicks ?? 0n,
            connectionId: entry.target.id,
            command: started.program ?? '',
            workDir: started.workDir ?? '',
          }),
        onProcessGone: (gone) => this.records?.remove(gone.pid!, gone.startTicks ?? 0n),
      });
      try {
        await session.open(entry.openTimeoutMs);
      } finally {
        entry.opening = undefined;
      }
      if (entry.stopped) {
        await session.close();
        throw new Error('the connection was stopped');
      }
      entry.session = session;
      return session;
    })();
    return entry.opening;
  }

  private onUnexpectedClose(entry: Entry, session: McpSession): void {
    if (entry.session === session) entry.session = undefined;
    if (entry.stopped || this.shuttingDown || entry.target.protocol !== 'stdio') return;
    const lived = Date.now() - session.openedAt;
    entry.failures = lived > STABLE_MS ? 0 : entry.failures + 1;
    this.scheduleRestart(entry);
  }

  private scheduleRestart(entry: Entry): void {
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, entry.failures - 1));
    this.logger.warn({ connectionId: entry.target.id, delayMs: delay }, 'stdio server exited; restarting');
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (entry.stopped || this.shuttingDown || entry.session) return;
      entry.restarts += 1;
      this.open(entry).then(
        () => this.logger.info({ connectionId: entry.target.id, restarts: entry.restarts }, 'stdio server restarted'),
        (error: unknown) => {
          this.logger.warn({ connectionId: entry.target.id, err: error }, 'stdio server restart failed');
          entry.failures += 1;
          if (!entry.stopped && !this.shuttingDown) this.scheduleRestart(entry);
        },
      );
    }, delay);
    entry.timer.unref();
  }

  /** Drops a session that misbehaved (a check timed out); the next use opens a fresh one. */
  async discard(connectionId: string): Promise<void> {
    const entry = this.entries.get(connectionId);
    const session = entry?.session;
    if (!entry || !session) return;
    entry.session = undefined;
    await session.close();
  }

  diagnostics(connectionId: string): SessionDiagnostics {
    const entry = this.entries.get(connectionId);
    const session = entry?.session;
    if (!entry || !session) return { processRunning: false, cpuUsage: 0, pid: null, restarts: entry?.restarts ?? 0 };
    return { ...session.diagnostics(), restarts: entry.restarts };
  }

  /** Ends the connection's session and process for good (DELETE, or status `disconnected`). */
  async stop(connectionId: string): Promise<void> {
    const entry = this.entries.get(connectionId);
    if (!entry) return;
    entry.stopped = true;
    if (entry.timer) clearTimeout(entry.timer);
    this.entries.delete(connectionId);
    await entry.opening?.catch(() => undefined);
    await entry.session?.close();
  }

  get size(): number {
    return this.entries.size;
  }

  async stopAll(): Promise<void> {
    this.shuttingDown = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    await Promise.all([...this.entries.keys()].map((id) => this.stop(id)));
  }
}
