import type { ExecutionRow } from './executions.repository';

/**
 * The final rows of runs that ended in this process, kept only for the `async: false` requests of
 * this process that wait for them: such a request answers from the row its run just stored instead
 * of reading it back. A run that ended elsewhere (another replica) is read from Postgres as before.
 */
export class LocalEnds {
  private readonly rows = new Map<string, ExecutionRow | undefined>();

  /** A request of this process waits for this run. */
  watch(executionId: string): void {
    this.rows.set(executionId, undefined);
  }

  /** The run has stored its end (called after the write). */
  ended(row: ExecutionRow): void {
    if (this.rows.has(row.id)) this.rows.set(row.id, row);
  }

  /** The stored end, if this process ran it; stops watching. */
  take(executionId: string): ExecutionRow | undefined {
    const row = this.rows.get(executionId);
    this.rows.delete(executionId);
    return row;
  }
}
