import type { Logger } from 'pino';

/**
 * When a component closes on shutdown, lowest first: stop taking work, let running work finish,
 * then close what that work needed. Components at one priority close together.
 */
export const ShutdownPriority = {
  /** HTTP server, WebSocket and gRPC listeners, schedulers: no new work comes in. */
  intake: 0,
  /** Queue workers finish their running jobs. */
  workers: 10,
  /** The service's own components (buffers flushed, timers stopped, children stopped). */
  components: 20,
  /** Queue producers. */
  producers: 30,
  /** Postgres and Redis. */
  stores: 90,
  /** Telemetry last, so that the shutdown itself is traced. */
  telemetry: 100,
} as const;

export interface ShutdownHook {
  name: string;
  priority: number;
  close: () => Promise<unknown> | unknown;
}

/** Each component registers its own close and priority; `run` closes them in order, once. */
export class Shutdown {
  private readonly hooks: ShutdownHook[] = [];
  private running?: Promise<void>;

  constructor(private readonly logger: Logger) {}

  /** Registers a close; `priority` defaults to `components`. */
  onShutdown(name: string, close: ShutdownHook['close'], priority: number = ShutdownPriority.components): void {
    this.hooks.push({ name, priority, close });
  }

  run(): Promise<void> {
    return (this.running ??= this.closeAll());
  }

  private async closeAll(): Promise<void> {
    const priorities = [...new Set(this.hooks.map((hook) => hook.priority))].sort((a, b) => a - b);
    for (const priority of priorities) {
      await Promise.all(
        this.hooks
          .filter((hook) => hook.priority === priority)
          .map(async (hook) => {
            try {
              await hook.close();
            } catch (error) {
              this.logger.warn({ err: error, component: hook.name }, 'error while closing');
            }
          }),
      );
    }
  }
}
