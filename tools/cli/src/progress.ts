import type { ExecutionEvent } from '@platform/sdk';

const BAR_WIDTH = 20;

/**
 * One line per event of a workflow run: a bar of the nodes done out of all, the node, what
 * happened and, for an ended node, how long it took (from the events' own timestamps).
 */
export class RunProgress {
  private readonly started = new Map<string, number>();
  private readonly done = new Set<string>();
  private readonly runStarted = Date.now();
  firstEventAt: number | undefined;

  constructor(private readonly totalNodes: number) {}

  private bar(): string {
    const total = Math.max(this.totalNodes, this.done.size, 1);
    const filled = Math.round((this.done.size / total) * BAR_WIDTH);
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${this.done.size}/${total}`;
  }

  /** The line for an event, or undefined for one not worth a line. */
  line(event: ExecutionEvent): string | undefined {
    const at = Date.parse(event.timestamp) || Date.now();
    this.firstEventAt ??= at;
    const node = typeof event.nodeId === 'string' ? event.nodeId : '';
    const took = () => {
      const since = this.started.get(node);
      return since === undefined ? '' : `  ${Math.max(0, at - since)} ms`;
    };
    switch (event.type) {
      case 'node-started':
        this.started.set(node, at);
        return `${this.bar()}  ▶ ${node} started`;
      case 'node-completed':
        this.done.add(node);
        return `${this.bar()}  ✔ ${node} completed${took()}`;
      case 'node-skipped':
        this.done.add(node);
        return `${this.bar()}  ↷ ${node} skipped`;
      case 'node-retrying':
        return `${this.bar()}  ↻ ${node} retrying (attempt ${String(event.attempt ?? '?')})${event.error ? `: ${describe(event.error)}` : ''}`;
      case 'node-failed':
        this.done.add(node);
        return `${this.bar()}  ✖ ${node} failed${took()}${event.error ? `: ${describe(event.error)}` : ''}`;
      case 'workflow-completed':
        return `workflow completed in ${this.elapsed(at)} ms`;
      case 'workflow-failed':
        return `workflow failed after ${this.elapsed(at)} ms${event.error ? `: ${describe(event.error)}` : ''}`;
      default:
        return `${event.type}${node ? ` ${node}` : ''}`;
    }
  }

  private elapsed(at: number): number {
    return Math.max(0, at - (this.firstEventAt ?? this.runStarted));
  }
}

function describe(error: unknown): string {
  if (typeof error === 'string') return error;
  const { message, code } = (error ?? {}) as { message?: string; code?: string };
  return [code, message].filter(Boolean).join(': ') || JSON.stringify(error);
}
