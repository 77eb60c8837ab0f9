import type { Request } from 'express';
import type { Caller } from '../agents/agents.service';

/** The verified caller of a protected route, with the token to forward. */
export function caller(req: Request): Caller {
  const auth = req.auth!;
  const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  return { sub: auth.sub, permissions: auth.permissions ?? [], teams: auth.teams, bearer };
}
