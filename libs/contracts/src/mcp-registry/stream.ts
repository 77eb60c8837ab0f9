import { z } from 'zod';

export const StreamEventKind = z.enum(['connection-status', 'health-check', 'capability-request']);
export type StreamEventKind = z.infer<typeof StreamEventKind>;

export const StreamSubscribe = z.object({ action: z.enum(['subscribe', 'unsubscribe']), events: z.array(StreamEventKind).min(1) });

export type RegistryEvent =
  | { type: 'connection-status'; connectionId: string; status: string; previousStatus?: string; timestamp: string }
  | { type: 'health-check'; connectionId: string; health: string; responseTime: number; error?: string; timestamp: string }
  | { type: 'capability-request'; connectionId: string; capability: string; success: boolean; latency: number; timestamp: string };
