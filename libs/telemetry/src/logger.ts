import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-context';

export type { Logger } from 'pino';

/** Paths that never reach a log line. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.api_key',
  '*.apiKey',
  '*.client_secret',
  '*.clientSecret',
];

/** pino JSON with service and version on every line, and the request and trace ids in context. */
export function createLogger(service: string, version: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service, version },
    redact: { paths: REDACTED, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const requestId = currentRequestId();
      const traceId = trace.getActiveSpan()?.spanContext().traceId;
      return { ...(requestId && { requestId }), ...(traceId && { traceId }) };
    },
  });
}
