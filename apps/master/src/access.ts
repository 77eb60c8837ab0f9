import type { TeamMembershipClaim } from '@platform/contracts';
import { OwnershipRule } from '@platform/http';
import type { Request } from 'express';

/** Who is calling: the token's subject, permissions and teams, and the bearer token forwarded to registry and workers. */
export interface Caller {
  sub: string;
  permissions: string[];
  teams?: TeamMembershipClaim[];
  /** `Bearer <token>` as received: calls made for the user carry the user's identity and permissions. */
  authorization?: string;
}

/**
 * The caller of a request. A delegated token (the gateway acting for a user: `sub` the user, `act`
 * the gateway) is the user: ownership follows `sub`, never the actor.
 */
export function caller(req: Request): Caller {
  return { sub: req.auth?.sub ?? '', permissions: req.auth?.permissions ?? [], teams: req.auth?.teams, authorization: req.headers.authorization };
}

/** The platform's one ownership rule (libs/http), with the admin permission of each kind of resource. */
export const rules = {
  agent: OwnershipRule.of('Agent', 'agents:admin'),
  /** A certification is read by whoever may read its agent (its owner and team are copied from the agent). */
  certification: OwnershipRule.of('Certification', 'agents:admin'),
  workflow: OwnershipRule.of('Workflow', 'orchestration:admin'),
  execution: OwnershipRule.of('Execution', 'orchestration:admin'),
};

export const permission = {
  agentsRead: { permission: 'agents:read' },
  agentsWrite: { permission: 'agents:write' },
  orchestrationRead: { permission: 'orchestration:read' },
  orchestrationWrite: { permission: 'orchestration:write' },
  certificationRead: { permission: 'certification:read' },
  certificationWrite: { permission: 'certification:write' },
  governanceRead: { permission: 'governance:read' },
  federationRead: { permission: 'federation:read' },
  federationAdmin: { permission: 'federation:admin' },
  monitoringRead: { permission: 'monitoring:read' },
} as const;
