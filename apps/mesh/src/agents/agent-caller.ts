import { guardedFetch, guardedTarget, type GuardedTarget } from '@platform/http';

/**
 * The one place the mesh calls what an agent registered (its endpoint, its HTTP or gRPC check):
 * every call goes through the platform's outbound guard (http(s) only, timeout, size cap, no private
 * addresses unless OUTBOUND_ALLOW_PRIVATE).
 */
export class AgentCaller {
  constructor(private readonly allowPrivate: boolean) {}

  /** POSTs a message; throws unless the agent answers 2xx. */
  async deliver(url: string, body: unknown, timeoutMs: number): Promise<void> {
    const response = await guardedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      { timeoutMs, maxBytes: 64 * 1024, allowPrivate: this.allowPrivate },
    );
    if (response.status < 200 || response.status >= 300) throw new Error(`agent endpoint answered HTTP ${response.status}`);
  }

  /** GETs a health URL and answers its status code. */
  async check(url: string, timeoutMs: number): Promise<number> {
    const response = await guardedFetch(url, { method: 'GET' }, { timeoutMs, maxBytes: 64 * 1024, allowPrivate: this.allowPrivate });
    return response.status;
  }

  /** Where a gRPC check may connect (`host:port`), under the same guard; refused as an HTTP target would be. */
  grpcTarget(target: string): Promise<GuardedTarget> {
    return guardedTarget(target, this.allowPrivate);
  }
}
