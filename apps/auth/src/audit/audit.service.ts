import type { Request } from 'express';
import type { AuditFilter, AuditRepository } from './audit.repository';

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
  | 'token_exchanged'
  | 'team_created'
  | 'team_member_set'
  | 'team_member_removed'
  | 'team_deleted'
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
  constructor(private readonly events: AuditRepository) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.events.insert({
      eventType: entry.eventType,
      userId: entry.userId ?? null,
      clientId: entry.clientId ?? null,
      ip: entry.ip ?? null,
      userAgent: entry.userAgent ?? null,
      metadata: { mfa: false, ...entry.metadata },
    });
  }

  async query(filter: AuditFilter) {
    const { events, total } = await this.events.page(filter);
    return {
      events: events.map((event) => ({ ...event, timestamp: event.timestamp.toISOString(), metadata: event.metadata as Record<string, unknown> })),
      total,
      limit: filter.limit,
      offset: filter.offset,
    };
  }
}
