import { ApiError, ApiRouter } from '@platform/http';
import { TokenError, type TokenVerifier } from '@platform/jwt';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { tracing } from '@platform/contracts';
import { authenticateIngest, INGEST_PERMISSION, presentedCredential } from './ingest-auth';
import { BufferFullError } from './ingest-buffer';
import type { IngestKeys } from './ingest-keys';
import type { IngestService, OtlpFormat } from './ingest.service';
import { DecodeError, encodeResponseProtobuf, responseJson } from './otlp.codec';
import { readBody } from './request-body';

export interface OtlpRouteOptions {
  service: IngestService;
  keys: IngestKeys;
  verifier: TokenVerifier;
  maxBodyBytes: number;
  retryAfterSeconds: number;
}

function formatOf(req: Request): OtlpFormat | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/**
 * `POST /v1/traces`, OTLP/HTTP. Mounted before the JSON parser: it reads its own body (protobuf or
 * JSON, optionally gzip), so the size limit applies to the inflated bytes.
 */
export function otlpRouter(options: OtlpRouteOptions): Router {
  const router = express.Router();
  const authenticate = async (req: Request): Promise<void> => {
    const claims = await authenticateIngest(presentedCredential(req.headers['x-api-key'], req.headers.authorization), options.keys, options.verifier);
    if (claims) req.auth = claims;
  };

  router.post('/v1/traces', async (req: Request, res: Response, next: NextFunction) => {
    try {
      try {
        await authenticate(req);
      } catch (error) {
        if (error instanceof TokenError || (error instanceof ApiError && error.status === 401)) options.service.counters.unauthenticated++;
        throw error;
      }
      const format = formatOf(req);
      if (!format) {
        throw new ApiError(415, 'validation_error', 'unsupported_media_type', 'Content-Type must be application/x-protobuf or application/json', {
          received: req.headers['content-type'] ?? null,
        });
      }
      const body = await readBody(req, options.maxBodyBytes);
      let decoded;
      try {
        decoded = options.service.decode(format, body);
      } catch (error) {
        if (error instanceof DecodeError) throw new ApiError(400, 'validation_error', 'invalid_request', error.message);
        throw error;
      }
      let partial;
      try {
        partial = await options.service.ingest(decoded);
      } catch (error) {
        if (error instanceof BufferFullError) {
          throw new ApiError(
            503,
            'api_error',
            'service_unavailable',
            'The ingest buffer is full; retry later',
            { retryAfter: options.retryAfterSeconds },
            {
              'Retry-After': String(options.retryAfterSeconds),
            },
          );
        }
        // The batch was not committed (database down or too slow): the exporter retries on 503.
        throw new ApiError(
          503,
          'api_error',
          'service_unavailable',
          'The spans could not be committed; retry later',
          { dependency: 'database' },
          {
            'Retry-After': String(options.retryAfterSeconds),
          },
        );
      }
      if (format === 'protobuf') res.status(200).type('application/x-protobuf').send(encodeResponseProtobuf(partial));
      else res.status(200).json(responseJson(partial));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

/** Documents `POST /v1/traces` in the OpenAPI document (it is served by `otlpRouter`). */
export function otlpDocumentation(verifier: TokenVerifier): ApiRouter {
  return new ApiRouter(verifier).document({
    method: 'post',
    path: '/traces',
    summary: 'Ingest spans (OTLP/HTTP)',
    description:
      'An ExportTraceServiceRequest as application/x-protobuf or application/json (proto3 JSON mapping, hex ids), optionally Content-Encoding: gzip. ' +
      'Authenticated by a static ingestion key (Authorization: Bearer or x-api-key) or a platform token with traces:write. ' +
      'Answers once the spans are committed, in the request content type; invalid spans are counted in partialSuccess.',
    tags: ['ingestion'],
    access: { permission: INGEST_PERMISSION },
    body: z.object({ resourceSpans: z.array(z.unknown()) }),
    responses: {
      200: { description: 'Committed', schema: tracing.ExportTraceServiceResponse, contentTypes: ['application/json', 'application/x-protobuf'] },
      400: { description: 'Undecodable body' },
      401: { description: 'No or bad credentials' },
      413: { description: 'Body over TRACING_MAX_BODY_MB after decompression' },
      415: { description: 'Unsupported content type or encoding' },
      503: { description: 'Ingest buffer full (Retry-After)' },
    },
  });
}
