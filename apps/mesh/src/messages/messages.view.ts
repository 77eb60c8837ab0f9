import type { mesh } from '@platform/contracts';
import type { z } from 'zod';
import type { MessageRow } from './messages.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function messageView(row: MessageRow): z.infer<typeof mesh.MeshMessage> {
  return {
    id: row.id,
    message_id: row.messageId,
    from: row.sender,
    agent_id: row.agentId,
    capability: row.capability,
    payload: row.payload,
    sent_by: row.sentBy,
    state: row.state as z.infer<typeof mesh.MessageState>,
    attempts: row.attempts,
    last_error: row.lastError,
    dead_reason: row.deadReason,
    expires_at: iso(row.expiresAt),
    created_at: row.createdAt.toISOString(),
    delivered_at: iso(row.deliveredAt),
    acked_at: iso(row.ackedAt),
  };
}
