import { AsyncResource } from 'node:async_hooks';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

export interface JsonBodyOptions {
  /** `1mb`, `512kb`, `100b` or a number of bytes, as express.json takes it. */
  limit: string;
  /** Called with the raw bytes before they are parsed; throws to refuse them. */
  verify?: (req: Request, res: Response, body: Buffer) => void;
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** The byte count of a limit like `1mb`, or undefined for a form this does not read. */
function limitBytes(limit: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  return match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!) : undefined;
}

/** An error as body-parser makes them, which the error handler maps to the error shape. */
function bodyError(status: number, message: string, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

function isPlainJson(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  if (contentType === undefined || contentType.length > 40) return false;
  const lower = contentType.toLowerCase();
  return lower === 'application/json' || lower === 'application/json; charset=utf-8' || lower === 'application/json;charset=utf-8';
}

/**
 * express.json with a fast path for the common request: `Content-Type: application/json` (UTF-8),
 * a Content-Length within the limit and no Content-Encoding. Those bodies are read and parsed here
 * (strict JSON: an object or an array, `{}` for an empty body, errors typed as body-parser types
 * them); every other request (compressed, chunked, another charset or type, too large, already
 * read) goes to express.json itself, so its answers stay exactly body-parser's.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const fallback = express.json({ limit: options.limit, verify: options.verify });
  const limit = limitBytes(options.limit);
  const verify = options.verify;
  return (req, res, next) => {
    const headers = req.headers;
    const declared = headers['content-length'];
    if (declared === undefined && headers['transfer-encoding'] === undefined) {
      // No body (GET, HEAD, DELETE without one): nothing to read.
      return next();
    }
    const length = declared === undefined ? NaN : Number(declared);
    if (
      limit === undefined ||
      !(length <= limit) ||
      headers['transfer-encoding'] !== undefined ||
      headers['content-encoding'] !== undefined ||
      !isPlainJson(headers['content-type']) ||
      !req.readable ||
      req.readableDidRead
    ) {
      return fallback(req, res, next);
    }
    const read = new BodyRead(req, res, next, length, verify);
    // Anonymous callbacks: named per-request closures cost a defineProperty each under keepNames.
    req.on('data', (chunk: Buffer) => read.data(chunk));
    req.on('end', () => read.finish());
    req.on('error', (error: Error) => read.finish(bodyError(400, error.message, 'request.error')));
    req.on('aborted', () => read.finish(bodyError(400, 'request aborted', 'request.aborted')));
  };
}

/** One body being read: its chunks, then verify and parse, or the error once. */
class BodyRead {
  /** The request's async context (request id, trace), which the socket's events do not carry. */
  private readonly context = new AsyncResource('JsonBody');
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private done = false;
  private answered = false;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    private readonly next: NextFunction,
    private readonly length: number,
    private readonly verify: JsonBodyOptions['verify'],
  ) {}

  data(chunk: Buffer): void {
    if (this.done) return;
    this.received += chunk.length;
    this.chunks.push(chunk);
  }

  finish(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.context.runInAsyncScope(this.settle, this, error);
  }

  private settle(error?: Error): void {
    if (error) return this.fail(error);
    const { chunks, received, req, next } = this;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
    if (received !== this.length) return next(bodyError(400, 'request size did not match content length', 'request.size.invalid'));
    if (this.verify) {
      try {
        this.verify(req, this.res, body);
      } catch (refused) {
        const verifyError = refused as Error & { status?: number; type?: string };
        if (verifyError.status === undefined) {
          Object.assign(verifyError, { status: 403, statusCode: 403, expose: true, type: verifyError.type ?? 'entity.verify.failed' });
        }
        return next(verifyError);
      }
    }
    try {
      req.body = parseStrictJson(body.toString('utf8'));
    } catch {
      return next(bodyError(400, 'The request body is not valid JSON', 'entity.parse.failed'));
    }
    next();
  }

  /** Reads off the rest of the request before answering, as body-parser does. */
  private fail(error: Error): void {
    const answer = () => {
      if (this.answered) return;
      this.answered = true;
      this.next(error);
    };
    if (this.req.readableEnded || this.req.destroyed) return answer();
    this.req.once('end', answer);
    this.req.once('close', answer);
    this.req.resume();
  }
}

const BOM = 0xfeff;

/** JSON.parse, strict as body-parser's default: an object or an array; `{}` for an empty body. */
function parseStrictJson(text: string): unknown {
  const source = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  if (source.length === 0) return {};
  const first = source[0] === '{' || source[0] === '[' ? source[0] : source.trimStart()[0];
  if (first !== '{' && first !== '[') throw new SyntaxError('strict violation');
  return JSON.parse(source);
}
