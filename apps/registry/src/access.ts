import type { TeamMembershipClaim } from '@platform/contracts';
import { notFound, OwnershipRule, type Owned } from '@platform/http';
import type { Request } from 'express';

export const READ = 'registry:read';
export const WRITE = 'registry:write';
export const ADMIN = 'registry:admin';

export interface Caller {
  sub: string;
  permissions: string[];
  teams?: TeamMembershipClaim[];
}

export function caller(req: Request): Caller {
  return { sub: req.auth?.sub ?? '', permissions: req.auth?.permissions ?? [], teams: req.auth?.teams };
}

/**
 * The platform's one ownership rule (DESIGN.md, "Who owns what") over a namespace and its agents:
 * the owner, an editor of its team or `registry:admin` publish, change and unpublish; a team viewer
 * also reads what the registry keeps from others (analytics). The catalogue itself stays public
 * to `registry:read`. Another's agent answers 404 (`Agent ns/name not found`), a viewer's change 403.
 */
export const agentRule = OwnershipRule.of('Agent', ADMIN);
/** Publishing into a namespace the caller may not change answers 404, as for an agent. */
export const namespaceRule = new OwnershipRule({ admin: ADMIN, notFound: (namespace) => notFound(`No namespace ${namespace} that you may publish in`) });

/** A namespace's ownership as the rule reads it. */
export const ownership = (ns: { ownerSub: string; team: string | null }): Owned => ({ owner: ns.ownerSub, team: ns.team });
