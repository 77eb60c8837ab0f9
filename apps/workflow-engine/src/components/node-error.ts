import { UpstreamError } from '@platform/clients';

/** Why a node failed: a stable `code`, and whether another attempt could succeed. */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

export const configError = (message: string) => new NodeError('CONFIGURATION_ERROR', message, false);
export const invalidInput = (message: string) => new NodeError('INVALID_INPUT', message, false);

/** Maps what a component threw to a NodeError, keeping upstream timeouts and outages retryable. */
export function toNodeError(error: unknown): NodeError {
  if (error instanceof NodeError) return error;
  if (error instanceof UpstreamError) {
    const model = error.service === 'local-models' || error.service === 'images';
    if (error.reason === 'timeout') return new NodeError(model ? 'MODEL_TIMEOUT' : 'UPSTREAM_TIMEOUT', error.message, true);
    if (error.reason === 'network') return new NodeError('UPSTREAM_UNAVAILABLE', error.message, true);
    if (error.reason === 'blocked') return configError(error.message);
    if (error.upstreamStatus === 404) return new NodeError('NOT_FOUND', error.message, false);
    if (error.upstreamStatus === 401 || error.upstreamStatus === 403) return new NodeError('UPSTREAM_UNAUTHORIZED', error.message, false);
    if (error.retryable) return new NodeError(model ? 'MODEL_ERROR' : 'UPSTREAM_ERROR', error.message, true);
    return new NodeError('UPSTREAM_REJECTED', error.message, false);
  }
  return new NodeError('INTERNAL_ERROR', 'The node failed unexpectedly', true);
}
