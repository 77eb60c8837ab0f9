import { localModels } from '@platform/contracts';
import { ApiError, toApiError } from '@platform/http';
import { currentRequestId, type Logger } from '@platform/telemetry';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

function sendError(res: Response, apiError: ApiError, logger: Logger, path: string, body: unknown): void {
  if (apiError.status >= 500 && apiError.status !== 503 && apiError.status !== 502) logger.error({ err: apiError, path }, 'request failed');
  for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value);
  // The platform's code and request id stay readable beside the foreign shape.
  res.setHeader('X-Error-Code', apiError.code);
  res.setHeader('X-Request-Id', currentRequestId() ?? 'unknown');
  res.status(apiError.status).json(body);
}

/** Errors under `/v1` in OpenAI's shape, which its clients turn into `APIError` with status, code and param. */
export function openAiErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const apiError = toApiError(error);
    sendError(res, apiError, logger, req.path, localModels.openAiErrorOf(apiError));
  };
}

/** An unknown path under `/v1`, answered in OpenAI's shape too. */
export const openAiRouteNotFound: RequestHandler = (req, _res, next) =>
  next(new ApiError(404, 'not_found_error', 'route_not_found', `No route for ${req.method} ${req.baseUrl}${req.path}`));

/**
 * Errors of the Ollama routes (`/api/*`) as Ollama answers them, `{"error": "<message>"}`: the
 * official clients show that text (the platform's object read as `[object Object]`). The code,
 * type, details and request id stay beside it and in the `X-Error-Code` / `X-Request-Id` headers.
 */
export function ollamaErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent || !req.path.startsWith('/api/')) return next(error);
    const apiError = toApiError(error);
    // Beside Ollama's `error` text, the platform's fields, which Ollama's clients ignore.
    sendError(res, apiError, logger, req.path, {
      error: apiError.message,
      type: apiError.type,
      code: apiError.code,
      ...(apiError.details !== undefined && { details: apiError.details }),
      requestId: currentRequestId() ?? 'unknown',
    });
  };
}
