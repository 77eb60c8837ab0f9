import type { Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError } from '@platform/config';
import { DependencyUnavailableError } from '@platform/data';
import { answerClientErrors, createAppServer } from '@platform/http';
/** Something to close on shutdown, in the order given (stop intake first, stores last). */
export interface Closer {
  name: string;
  close: () => Promise<unknown> | unknown;
}

export interface RunningService {
  server: Server;
  port: number;
  stop: () => Promise<void>;
}

/** Listens, and on SIGTERM/SIGINT stops intake, then closes each closer in order. */
export async function listen(
  app: Express,
  options: { port: number; host?: string; logger: Logger; closers?: Closer[]; onServer?: (server: Server) => void },
): Promise<RunningService> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createAppServer(app);
    s.once('error', reject);
    s.listen(options.port, options.host ?? '0.0.0.0', () => resolve(s));
  });
  answerClientErrors(server);
  options.onServer?.(server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      await closeInOrder(options.closers ?? [], options.logger);
    })());
  return { server, port, stop };
}

/** Closes each closer in turn; one that fails is logged and the rest still close. */
export async function closeInOrder(closers: readonly Closer[], logger: Logger): Promise<void> {
  for (const closer of closers) {
    try {
      await closer.close();
    } catch (error) {
      logger.warn({ err: error, closer: closer.name }, 'error while closing');
    }
  }
}

/** Wires process signals to a graceful stop; a second signal exits at once. */
export function stopOnSignals(service: Pick<RunningService, 'stop'>, logger: Logger): void {
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      logger.info({ signal }, 'shutting down');
      service.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

/**
 * The end of a service's `main().catch(...)`: a missing dependency or a bad setting is one line
 * that says what to do; anything else keeps its stack. Exits non-zero.
 */
export function exitOnStartupFailure(service: string): (error: unknown) => never {
  return (error) => {
    const expected = error instanceof DependencyUnavailableError || error instanceof ConfigError;
    const detail = expected ? (error as Error).message : String((error as Error)?.stack ?? error);
    console.error(`${service} failed to start: ${detail}`);
    process.exit(1);
  };
}
