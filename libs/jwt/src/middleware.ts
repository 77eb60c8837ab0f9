import type { AccessTokenClaims } from '@platform/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hasPermission } from './permissions';
import { TokenError } from './token-error';
import type { TokenVerifier } from './verifier';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified claims of the caller's access token, set by requireAuth(). */
      auth?: AccessTokenClaims;
    }
  }
}

/** Refused for lack of a permission; the error handler answers 403 with what was required. */
export class PermissionError extends Error {
  constructor(
    readonly required: string,
    readonly userPermissions: readonly string[],
  ) {
    super(`This needs the permission ${required}`);
    this.name = 'PermissionError';
  }
}

export function bearerToken(req: Request, allowQueryToken = false): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  if (allowQueryToken && typeof req.query?.access_token === 'string') return req.query.access_token;
  return undefined;
}

/** Verifies the bearer token and puts its claims on `req.auth`; 401 otherwise. */
export function requireAuth(verifier: TokenVerifier): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    if (!token) return next(new TokenError('token_missing', 'An Authorization: Bearer token is required'));
    verifier.verify(token).then(
      (claims) => {
        req.auth = claims;
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/** Requires a permission of the shape `<resource>:<action>`; use after requireAuth(). */
export function requirePermission(required: string): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const granted = req.auth?.permissions ?? [];
    if (!req.auth) return next(new TokenError('token_missing', 'An Authorization: Bearer token is required'));
    if (!hasPermission(granted, required)) return next(new PermissionError(required, granted));
    next();
  };
}
