import type { Request } from 'express';

/** Who is calling: the token's subject and the bearer token, forwarded to registry and workers. */
export interface Caller {
  sub: string;
  permissions: readonly string[];
  /** `Bearer <token>` as received: calls made for the user carry the user's permissions. */
  authorization?: string;
}

export function caller(req: Request): Caller {
  return { sub: req.auth?.sub ?? '', permissions: req.auth?.permissions ?? [], authorization: req.headers.authorization };
}

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
