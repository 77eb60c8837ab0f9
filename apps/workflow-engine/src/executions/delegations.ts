import { delegatedToken, type TokenExchanger, type TokenSource } from '@platform/clients';
import type { Redis } from 'ioredis';
import type { SecretBox } from '../webhooks/secret-box';

const keyOf = (runId: string) => `workflow-engine:delegation:${runId}`;

/** The `exp` of a JWT, in epoch milliseconds (the token was verified where it came from). */
function expiresAt(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identity a run calls models, MCP servers and agents with: the token of the user who started
 * it, delegated by auth (RFC 8693: the user's `sub`, the engine in `act`), so those services answer
 * as they would the user, and what the run creates there is the user's. Runs are picked up later,
 * perhaps by another process, so the token waits in Redis, sealed with the service key, until it
 * expires; a run picked up after that (or started before runs carried one) calls with the engine's
 * own key, which reaches only what that key's permissions say.
 */
export class Delegations {
  constructor(
    private readonly redis: Redis,
    private readonly box: SecretBox,
    /** The engine's own API-key token; without one the caller's token is kept as it is. */
    private readonly exchanger: TokenExchanger | undefined,
    private readonly serviceToken: TokenSource | undefined,
  ) {}

  /**
   * A token that acts for the caller whose bearer token is given, asked of auth before anything is
   * recorded (auth refusing it refuses the run).
   */
  async obtain(callerToken: string | undefined): Promise<string | undefined> {
    if (!callerToken) return undefined;
    return this.exchanger ? ((await delegatedToken(this.exchanger, callerToken)()) ?? undefined) : callerToken;
  }

  /** Keeps a token from `obtain` for the run `runId`, until it expires. */
  async keep(runId: string, token: string | undefined): Promise<void> {
    if (token) await this.save(runId, token);
  }

  /** A batch's items run with the batch's grant. */
  async copy(fromRunId: string, toRunId: string): Promise<void> {
    const token = await this.read(fromRunId);
    if (token) await this.save(toRunId, token);
  }

  /** The token source of one run's outgoing calls: its grant while it lasts, else the engine's own. */
  tokenFor(runId: string): TokenSource {
    let granted: Promise<string | undefined> | undefined;
    return async () => {
      granted ??= this.read(runId);
      const token = await granted;
      if (token && (expiresAt(token) ?? 0) > Date.now()) return token;
      return this.serviceToken?.();
    };
  }

  private async save(runId: string, token: string): Promise<void> {
    const expiry = expiresAt(token);
    if (expiry === undefined || expiry <= Date.now()) return;
    await this.redis.set(keyOf(runId), this.box.seal(token), 'PXAT', expiry);
  }

  private async read(runId: string): Promise<string | undefined> {
    const sealed = await this.redis.get(keyOf(runId));
    if (!sealed) return undefined;
    try {
      return this.box.open(sealed);
    } catch {
      return undefined; // sealed under another key: the run calls as the engine
    }
  }
}
