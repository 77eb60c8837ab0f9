import { hasPermission } from '@platform/jwt';
import { forbidden } from '@platform/http';
import type { Request } from 'express';

export const READ = 'registry:read';
export const WRITE = 'registry:write';
export const ADMIN = 'registry:admin';

export interface Caller {
  sub: string;
  permissions: readonly string[];
}

export function caller(req: Request): Caller {
  return { sub: req.auth?.sub ?? '', permissions: req.auth?.permissions ?? [] };
}

export const isAdmin = (who: Caller): boolean => hasPermission(who.permissions, ADMIN);

/** Changing a namespace's agents needs its ownership or `registry:admin` (403 otherwise). */
export function assertOwner(who: Caller, owner: string, namespace: string): void {
  if (who.sub === owner || isAdmin(who)) return;
  throw forbidden(`Namespace ${namespace} belongs to another publisher`, { required: ADMIN, userPermissions: who.permissions, namespace, reason: 'not_owner' });
}
