import type { ErrorBody } from '@platform/contracts';
import { PermissionError, TokenError } from '@platform/jwt';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { dependencyUnavailable, isUniqueViolation, unavailableDependency } from './dependency-errors';
import { ApiError, badRequest, payloadTooLarge } from './errors';
import { currentRequestId } from '@platform/telemetry';

/** Maps anything thrown to the error shape of DESIGN.md; 5xx bodies carry no internals. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TokenError) {
    return new ApiError(401, 'authentication_error', 'invalid_token', error.message, {
      reason: error.reason,
      ...(error.expiredAt && { expiredAt: error.expiredAt.toISOString() }),
    });
  }
  if (error instanceof PermissionError) {
    return new ApiError(403, 'authorization_error', 'insufficient_permissions', error.message, {
      required: error.required,
      userPermissions: error.userPermissions,
    });
  }
  const bodyParserType = (error as { type?: string }).type;
  if (bodyParserType === 'entity.too.large') return payloadTooLarge('The request body is too large');
  if (bodyParserType === 'entity.parse.failed') return badRequest('The request body is not valid JSON');
  if (bodyParserType === 'encoding.unsupported' || bodyParserType === 'charset.unsupported') {
    return badRequest('The request body encoding is not supported');
  }
  if (isUniqueViolation(error)) return new ApiError(409, 'conflict_error', 'conflict', 'It already exists (created meanwhile by another request)');
  const dependency = unavailableDependency(error);
  if (dependency) return dependencyUnavailable(dependency);
  // Express and its parsers mark a client's mistake with its 4xx status (a malformed percent-escape,
  // a body whose Content-Encoding does not decode): it keeps that status, in the one error shape.
  const status = Number((error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode);
  if (Number.isInteger(status) && status >= 400 && status < 500) return clientError(status, error as Error);
  return new ApiError(500, 'api_error', 'internal_error', 'An internal error occurred');
}

const CLIENT_ERRORS: Record<number, [ApiError['type'], string, string]> = {
  400: ['validation_error', 'invalid_request', 'The request is malformed'],
  401: ['authentication_error', 'invalid_token', 'Authentication is required'],
  403: ['authorization_error', 'insufficient_permissions', 'The request is not allowed'],
  404: ['not_found_error', 'not_found', 'Not found'],
  413: ['validation_error', 'payload_too_large', 'The request body is too large'],
  415: ['validation_error', 'unsupported_media_type', 'The request body encoding is not supported'],
  429: ['rate_limit_error', 'rate_limited', 'Too many requests'],
};

function clientError(status: number, error: Error): ApiError {
  const [type, code, fallback] = CLIENT_ERRORS[status] ?? ['validation_error', 'invalid_request', 'The request cannot be processed'];
  // http-errors marks messages safe to show with `expose`; anything else gets the generic text.
  const message = (error as { expose?: boolean }).expose && error.message ? error.message : fallback;
  return new ApiError(status, type, code, message);
}

export function errorBody(error: ApiError): ErrorBody {
  return {
    error: { type: error.type, code: error.code, message: error.message, ...(error.details !== undefined && { details: error.details }) },
    requestId: currentRequestId() ?? 'unknown',
  };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const apiError = toApiError(error);
    if (apiError.status === 503)
      logger.warn(
        { dependency: (apiError.details as { dependency?: string } | undefined)?.dependency, method: req.method, path: req.path },
        'dependency unavailable',
      );
    else if (apiError.status >= 500) logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value);
    res.status(apiError.status).json(errorBody(apiError));
  };
}

export const routeNotFound: RequestHandler = (req, res) => {
  res.status(404).json(errorBody(new ApiError(404, 'not_found_error', 'route_not_found', `No route for ${req.method} ${req.path}`)));
};
