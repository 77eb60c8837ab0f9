import type { Request } from 'express';
import type { AuthDatabase, Prisma } from '../database';

/** Every authentication event the service records (spec 1, Events). */
export type AuditEventType =
  | 'login_success'
  | 'login_failure'
  | 'login_locked'
  | 'api_key_login_success'
  | 'api_key_login_failure'
  | 'token_refreshed'
  | 'refresh_failure'
  | 'refresh_token_reuse_detected'
  | 'token_revoked'
  | 'oauth_authorize'
  | 'oauth_login_success'
  | 'oauth_login_failure'
  | 'oauth_token_refreshed'
  | 'provider_configured'
  | 'signing_key_rotated'
  | 'user_created'
  | 'api_key_issued'
  | 'api_key_rotated'
  | 'api_key_revoked';

export interface AuditOrigin {
  ip?: string;
  userAgent?: string;
}

export interface AuditEntry extends AuditOrigin {
  eventType: AuditEventType;
  userId?: string | null;
  clientId?: string | null;
  metadata?: Record<string, unknown>;
}

export function originOf(req: Request): AuditOrigin {
  return { ip: req.ip, userAgent: req.get('user-agent')?.slice(0, 512) };
}

export class AuditLog {
  constructor(private readonly db: AuthDatabase) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.db.auditEvent.create({
      data: {
        eventType: entry.eventType,
        userId: entry.userId ?? null,
        clientId: entry.clientId ?? null,
        ip: entry.ip ?? null,
        userAgent: entry.userAgent ?? null,
        metadata: { mfa: false, ...entry.metadata } as Prisma.InputJsonValue,
      },
    });
  }

  async query(filter: { userId?: string; eventType?: string; from?: string; to?: string; limit: number; offset: number }) {
    const where = {
      ...(filter.userId && { userId: filter.userId }),
      ...(filter.eventType && { eventType: filter.eventType }),
      ...((filter.from || filter.to) && {
        timestamp: { ...(filter.from && { gte: new Date(filter.from) }), ...(filter.to && { lte: new Date(filter.to) }) },
      }),
    };
    const [events, total] = await Promise.all([
      this.db.auditEvent.findMany({ where, orderBy: [{ timestamp: 'desc' }, { id: 'asc' }], take: filter.limit, skip: filter.offset }),
      this.db.auditEvent.count({ where }),
    ]);
    return {
      events: events.map((event) => ({ ...event, timestamp: event.timestamp.toISOString(), metadata: event.metadata as Record<string, unknown> })),
      total,
      limit: filter.limit,
      offset: filter.offset,
    };
  }
}
