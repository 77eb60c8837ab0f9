import type { workers } from '@platform/contracts';

/** What a step handler gets for one attempt. */
export interface StepContext {
  runId: string;
  stepId: string;
  attempt: number;
  /**
   * `<run>:<step>`, sent with every side effect (`Idempotency-Key`) so that it can be de-duplicated
   * downstream: the same for every attempt of the step, the attempt being sent apart (`X-Attempt`).
   */
  idempotencyKey: string;
  traceId: string;
  /** Aborted on timeout, cancel and a lost lease. */
  signal: AbortSignal;
  /** The step definition with its templates rendered. */
  spec: workers.StepDefinition;
}

/** A step that ran and failed: recorded with its output; `retryable` unless retrying cannot help. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    message: string,
    readonly output?: unknown,
    readonly retryable = true,
  ) {
    super(message);
  }
}
