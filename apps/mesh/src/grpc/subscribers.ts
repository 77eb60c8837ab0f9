import type { Owned } from '@platform/http';
import { randomUUID } from 'node:crypto';

/** What a delivery stream sends an agent (the proto's `Delivery`). */
export interface DeliveryFrame {
  id: string;
  message_id: string;
  from: string;
  capability: string;
  payload_json: string;
  attempt: number;
  control: string;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class DeliveryError extends Error {
  override name = 'DeliveryError';
}

/** One open Subscribe stream of an agent, and the deliveries it has not acknowledged yet. */
export class Subscriber {
  readonly id = randomUUID();
  readonly since = new Date();
  delivered = 0;
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(
    readonly agentId: string,
    /** The agent's owner and team when the stream opened: who may settle its deliveries and see the stream. */
    readonly access: Owned,
    readonly peer: string,
    private readonly write: (frame: DeliveryFrame) => void,
    private readonly end: (reason: string) => void,
  ) {}

  get inFlight(): number {
    return this.pending.size;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Writes a delivery and resolves when the agent acknowledges it within `timeoutMs`. */
  deliver(frame: DeliveryFrame, timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new DeliveryError('subscriber disconnected'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(frame.id);
        reject(new DeliveryError(`not acknowledged within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(frame.id, { resolve, reject, timer });
      this.delivered += 1;
      this.write(frame);
    });
  }

  /** Sends a control frame (no acknowledgement expected). */
  control(control: string): void {
    if (!this.closed) this.write({ id: '', message_id: '', from: '', capability: '', payload_json: '', attempt: 0, control });
  }

  /** Settles a delivery; false when this stream has no such delivery outstanding. */
  ack(id: string, ok: boolean, error?: string): boolean {
    const pending = this.pending.get(id);
    if (!pending) return false;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (ok) pending.resolve();
    else pending.reject(new DeliveryError(`rejected by the agent${error ? `: ${error.slice(0, 500)}` : ''}`));
    return true;
  }

  /** The stream is gone: every unacknowledged delivery fails and will be redelivered. */
  closedBy(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new DeliveryError(`subscriber disconnected before acknowledging (${reason})`));
      this.pending.delete(id);
    }
  }

  /** Ends the stream from the server side (reset, drain, deregistration). */
  close(reason: string): void {
    if (this.closed) return;
    this.closedBy(reason);
    this.end(reason);
  }
}

/** Every open Subscribe stream of this node, by agent. */
export class SubscriberHub {
  private readonly byAgent = new Map<string, Set<Subscriber>>();
  private readonly listeners: Array<(agentId: string, present: boolean) => void> = [];

  onChange(listener: (agentId: string, present: boolean) => void): void {
    this.listeners.push(listener);
  }

  add(subscriber: Subscriber): void {
    const set = this.byAgent.get(subscriber.agentId) ?? new Set();
    set.add(subscriber);
    this.byAgent.set(subscriber.agentId, set);
    for (const listener of this.listeners) listener(subscriber.agentId, true);
  }

  remove(subscriber: Subscriber): void {
    const set = this.byAgent.get(subscriber.agentId);
    if (!set?.delete(subscriber)) return;
    if (set.size === 0) this.byAgent.delete(subscriber.agentId);
    for (const listener of this.listeners) listener(subscriber.agentId, this.has(subscriber.agentId));
  }

  has(agentId: string): boolean {
    return (this.byAgent.get(agentId)?.size ?? 0) > 0;
  }

  /** The agent's open stream with the fewest deliveries outstanding. */
  pick(agentId: string): Subscriber | undefined {
    let best: Subscriber | undefined;
    for (const subscriber of this.byAgent.get(agentId) ?? []) if (subscriber.isOpen && (!best || subscriber.inFlight < best.inFlight)) best = subscriber;
    return best;
  }

  ack(agentId: string, id: string, ok: boolean, error?: string): boolean {
    for (const subscriber of this.byAgent.get(agentId) ?? []) if (subscriber.ack(id, ok, error)) return true;
    return false;
  }

  of(agentId: string): Subscriber[] {
    return [...(this.byAgent.get(agentId) ?? [])];
  }

  all(): Subscriber[] {
    return [...this.byAgent.values()].flatMap((set) => [...set]);
  }

  agents(): string[] {
    return [...this.byAgent.keys()];
  }

  closeAll(reason: string): number {
    const all = this.all();
    for (const subscriber of all) subscriber.close(reason);
    return all.length;
  }
}
