import * as grpc from '@grpc/grpc-js';
import { protos } from '../grpc/proto';
import type { AgentRow } from '../agents/agents.repository';
import type { AgentCaller } from '../agents/agent-caller';

export interface ProbeResult {
  kind: string;
  status: 'passing' | 'warning' | 'critical';
  latencyMs: number | null;
  output: string;
}

/**
 * Runs one agent's check: `http` GETs its target through the outbound guard (2xx passes, 429
 * warns), `grpc` asks its grpc.health.v1 service, `ttl` passes while heartbeats arrive in time.
 */
export class Probes {
  private readonly grpcClients = new Map<string, grpc.Client & { Check: grpc.requestCallback<unknown> & ((...args: unknown[]) => unknown) }>();

  constructor(private readonly caller: AgentCaller) {}

  async run(agent: AgentRow, timeoutMs: number, now = Date.now()): Promise<ProbeResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    try {
      if (agent.checkType === 'http' && agent.checkTarget) {
        const status = await this.caller.check(agent.checkTarget, timeoutMs);
        const result = status >= 200 && status < 300 ? 'passing' : status === 429 ? 'warning' : 'critical';
        return { kind: 'http', status: result, latencyMs: elapsed(), output: `HTTP ${status}` };
      }
      if (agent.checkType === 'grpc' && agent.checkTarget) {
        const status = await this.grpcCheck(agent.checkTarget, timeoutMs);
        return { kind: 'grpc', status: status === 'SERVING' ? 'passing' : 'critical', latencyMs: elapsed(), output: status };
      }
      const last = agent.lastHeartbeatAt?.getTime() ?? agent.registeredAt.getTime();
      const age = now - last;
      return {
        kind: 'ttl',
        status: age <= agent.ttlMs ? 'passing' : 'critical',
        latencyMs: null,
        output: `last heartbeat ${age} ms ago (ttl ${agent.ttlMs} ms)`,
      };
    } catch (error) {
      return { kind: agent.checkType, status: 'critical', latencyMs: elapsed(), output: ((error as Error).message || 'check failed').slice(0, 500) };
    }
  }

  private async grpcCheck(target: string, timeoutMs: number): Promise<string> {
    // The guard resolves the target once; the client connects to the address it checked.
    const { host, port, address, family } = await this.caller.grpcTarget(target);
    const pinned = `${family === 6 ? `[${address}]` : address}:${port}`;
    const key = `${host} ${pinned}`;
    let client = this.grpcClients.get(key);
    if (!client) {
      client = new (protos().Health)(pinned, grpc.credentials.createInsecure(), {
        'grpc.default_authority': `${host.includes(':') ? `[${host}]` : host}:${port}`,
      }) as never;
      this.grpcClients.set(key, client!);
    }
    return new Promise((resolve, reject) => {
      (
        client as unknown as { Check: (req: unknown, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void) => void }
      ).Check({ service: '' }, { deadline: Date.now() + timeoutMs }, (error, response) =>
        error ? reject(new Error(`gRPC health: ${error.details || error.message}`)) : resolve(response?.status ?? 'UNKNOWN'),
      );
    });
  }

  close(): void {
    for (const client of this.grpcClients.values()) client.close();
    this.grpcClients.clear();
  }
}
