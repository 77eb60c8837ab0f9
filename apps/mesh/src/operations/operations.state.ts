import { serviceUnavailable } from '@platform/http';
import type { RequestHandler } from 'express';
import type { Server } from 'node:http';

/** What the node is doing right now: draining or not, and its open connections. */
export class NodeState {
  draining = false;
  httpConnections = 0;
  grpcCalls = 0;
  private readonly drainListeners: Array<() => void> = [];

  onDrain(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  startDraining(): boolean {
    if (this.draining) return false;
    this.draining = true;
    for (const listener of this.drainListeners) listener();
    return true;
  }

  assertAccepting(): void {
    if (this.draining) throw serviceUnavailable('This mesh node is draining and accepts no new work', { reason: 'draining' });
  }

  /** Counts the HTTP server's open connections (WebSocket upgrades included while open). */
  track(server: Server): void {
    server.on('connection', (socket) => {
      this.httpConnections += 1;
      socket.once('close', () => (this.httpConnections -= 1));
    });
  }

  /** While draining: every API write answers 503 and connections are not kept alive. */
  intakeGuard(basePath: string): RequestHandler {
    return (req, res, next) => {
      if (!this.draining || !req.path.startsWith(basePath)) return next();
      res.setHeader('Connection', 'close');
      if (req.method === 'GET' || req.method === 'HEAD') return next();
      next(serviceUnavailable('This mesh node is draining and accepts no new work', { reason: 'draining' }));
    };
  }
}
