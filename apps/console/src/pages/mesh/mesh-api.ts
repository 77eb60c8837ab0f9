import type { mesh } from '@platform/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';

export type MeshAgent = z.infer<typeof mesh.MeshAgent>;
export type MeshMessage = mesh.MeshMessage;
type AgentList = z.infer<typeof mesh.AgentList>;
type RoutingTable = z.infer<typeof mesh.RoutingTable>;
type QueueStats = z.infer<typeof mesh.QueueStats>;
type QueueDepth = z.infer<typeof mesh.QueueDepth>;
type MessageList = z.infer<typeof mesh.MessageList>;
type HealthHistory = z.infer<typeof mesh.HealthHistory>;

// The mesh page is live: agents, load and queues are read again every few seconds.
const LIVE_MS = 5_000;
export const DLQ_PAGE = 50;

export function useMeshAgents(status: string | null) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mesh', 'agents', { status }],
    queryFn: () => request<AgentList>('mesh', '/api/v1/agents', { query: { limit: 500, status: status ?? undefined } }),
    refetchInterval: LIVE_MS,
    placeholderData: keepPreviousData,
  });
}

/** Each agent's load as the router sees it: outstanding requests and latency (the routing table, per capability). */
export function useLoad() {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mesh', 'routing'],
    queryFn: async () => {
      const table = await request<RoutingTable>('mesh', '/api/v1/routing/table');
      const load = new Map<string, { outstanding: number; latency: number }>();
      for (const entries of Object.values(table.capabilities))
        for (const entry of entries) load.set(entry.agent_id, { outstanding: entry.outstanding, latency: entry.latency_ewma_ms });
      return load;
    },
    refetchInterval: LIVE_MS,
  });
}

export function useQueueStats() {
  const { request } = usePlatform();
  return useQuery({ queryKey: ['mesh', 'queues', 'stats'], queryFn: () => request<QueueStats>('mesh', '/api/v1/queues/stats'), refetchInterval: LIVE_MS });
}

export function useQueueDepth() {
  const { request } = usePlatform();
  return useQuery({ queryKey: ['mesh', 'queues', 'depth'], queryFn: () => request<QueueDepth>('mesh', '/api/v1/queues/depth'), refetchInterval: LIVE_MS });
}

export function useDeadLetters(offset: number) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mesh', 'dlq', offset],
    queryFn: () => request<MessageList>('mesh', '/api/v1/queues/dlq', { query: { limit: DLQ_PAGE, offset } }),
    refetchInterval: LIVE_MS,
    placeholderData: keepPreviousData,
  });
}

export function useRetryDeadLetters() {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[] | 'all') =>
      request<z.infer<typeof mesh.DlqRetryResult>>('mesh', '/api/v1/queues/dlq/retry', { method: 'POST', json: ids === 'all' ? { all: true } : { ids } }),
    onSettled: () => client.invalidateQueries({ queryKey: ['mesh'] }),
  });
}

export function useHealthHistory(agentId: string | undefined) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mesh', 'health', agentId],
    queryFn: () => request<HealthHistory>('mesh', `/api/v1/agents/${encodeURIComponent(agentId!)}/health/history`, { query: { limit: 20 } }),
    enabled: agentId !== undefined,
    refetchInterval: LIVE_MS,
  });
}
