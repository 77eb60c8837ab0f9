import { requireAuth, requirePermission, type TokenVerifier } from '@platform/jwt';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { badRequest } from './errors';
import { findUnsafeString } from './input-guards';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route: anyone, any verified caller, or a caller holding a permission. */
export type RouteAccess = 'public' | 'authenticated' | { permission: string };

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentTypes?: string[];
}

/** What the OpenAPI document records of a route. */
export interface OperationSpec {
  method: HttpMethod;
  /** Express-style path: `/agents/:namespace/:name`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  access: RouteAccess;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  headers?: z.ZodType;
  responses: Record<number, ResponseSpec>;
  /** For routes served outside Express (WebSocket upgrades): documented, not mounted. */
  upgrade?: 'websocket';
}

export interface Validated<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

export type ValidatedRequest<B, Q, P> = Request & { valid: Validated<B, Q, P> };

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, P extends z.ZodType | undefined> extends Omit<
  OperationSpec,
  'body' | 'query' | 'params' | 'upgrade'
> {
  body?: B;
  query?: Q;
  params?: P;
  /** Extra middleware run after authentication and before validation (rate limits, ...). */
  before?: RequestHandler[];
  /**
   * Returns the body of the first 2xx response, or sends the response itself and returns
   * undefined (redirects, other content types).
   */
  handler: (req: ValidatedRequest<Infer<B>, Infer<Q>, Infer<P>>, res: Response) => unknown;
}

/**
 * What res.status(status).json(body) sends, without Express's detour through res.send (a Buffer
 * copy of the text to measure it, freshness and ETag checks that a fresh API answer never needs).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  if (text === undefined) {
    res.status(status).json(body);
    return;
  }
  res.statusCode = status;
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

interface Issue {
  path: string;
  message: string;
  code: string;
}

/** Parses one part of the request, adding its problems to `issues` with paths like `body.size`. */
function parsePart(schema: z.ZodType | undefined, value: unknown, where: string, issues: Issue[]): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    issues.push({ path: [where, ...issue.path.map(String)].join('.'), message: issue.message, code: issue.code });
  }
  return undefined;
}

/**
 * An Express router whose routes are declared with their zod schemas: the same declaration
 * validates requests, checks access and feeds the OpenAPI document, so they cannot drift apart.
 */
export class ApiRouter {
  readonly router: Router = express.Router();
  readonly operations: OperationSpec[] = [];

  constructor(private readonly verifier?: TokenVerifier) {}

  route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, P extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<B, Q, P>,
  ): this {
    const { handler, before = [], ...operation } = spec;
    this.operations.push(operation);
    const successStatus = Number(Object.keys(spec.responses).find((status) => status.startsWith('2')) ?? 200);
    const validate = (req: Request, _res: Response, next: NextFunction) => {
      const issues: Issue[] = [];
      // Express 5 parses the query string anew on every read of req.query: read it once.
      const { params, query, body } = req;
      const valid = {
        params: parsePart(spec.params, params, 'params', issues),
        query: parsePart(spec.query, query, 'query', issues),
        body: parsePart(spec.body, body, 'body', issues),
      };
      for (const [where, value] of [
        ['params', params],
        ['query', query],
        ['body', body],
      ] as const) {
        const path = findUnsafeString(value, where);
        if (path) issues.push({ path, message: 'Text may not contain NUL characters or unpaired surrogates', code: 'invalid_characters' });
      }
      if (issues.length > 0) return next(badRequest('The request is invalid', { issues }));
      (req as ValidatedRequest<unknown, unknown, unknown>).valid = valid;
      next();
    };
    const run = async (req: Request, res: Response) => {
      const result = await handler(req as ValidatedRequest<Infer<B>, Infer<Q>, Infer<P>>, res);
      if (res.headersSent) return;
      if (result === undefined) res.status(successStatus).end();
      else if (successStatus === 204) res.status(successStatus).json(result);
      else sendJson(res, successStatus, result);
    };
    this.router[spec.method](spec.path, ...this.accessGuards(spec.access), ...before, validate, run);
    return this;
  }

  /** Documents a route that is served outside this router (a WebSocket upgrade). */
  document(operation: OperationSpec): this {
    this.operations.push(operation);
    return this;
  }

  private accessGuards(access: RouteAccess): RequestHandler[] {
    if (access === 'public') return [];
    if (!this.verifier) throw new Error('A protected route needs a TokenVerifier');
    const guards = [requireAuth(this.verifier)];
    if (typeof access === 'object') guards.push(requirePermission(access.permission));
    return guards;
  }
}
