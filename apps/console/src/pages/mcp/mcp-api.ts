import type { mcpRegistry } from '@platform/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { z } from 'zod';
import { platformUrl, session, usePlatform } from '../../api';

type ConnectionList = z.infer<typeof mcpRegistry.ListConnectionsResponse>;
export type ConnectionDetail = mcpRegistry.ConnectionDetail;
export type HealthCheckResult = mcpRegistry.HealthCheckResponse;
export type ToolCallResponse = z.infer<typeof mcpRegistry.ToolCallResponse>;

export function useConnections() {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mcp', 'connections'],
    queryFn: () => request<ConnectionList>('mcp-registry', '/connections', { query: { limit: 500 } }),
    refetchInterval: 10_000,
  });
}

export function useConnection(id: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mcp', 'connection', id],
    queryFn: () => request<ConnectionDetail>('mcp-registry', `/connections/${id}`),
    refetchInterval: 10_000,
  });
}

export function useHealthCheck(id: string) {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request<HealthCheckResult>('mcp-registry', `/connections/${id}/health-check`, { method: 'POST', json: {} }),
    onSettled: () => client.invalidateQueries({ queryKey: ['mcp', 'connection', id] }),
  });
}

export function useToolCall(id: string, tool: string) {
  const { request } = usePlatform();
  return useMutation({
    mutationFn: (args: Record<string, unknown>) =>
      request<ToolCallResponse>('mcp-registry', `/connections/${id}/tools/${encodeURIComponent(tool)}/call`, { method: 'POST', json: { arguments: args } }),
  });
}

/** One health check as the page lists it: from the registry's stream or from a check run here. */
export interface HealthEntry {
  at: string;
  status: string;
  responseTime: number;
  error?: string;
}

const MAX_ENTRIES = 50;

/**
 * The connection's health checks as they happen (the registry's `health-check` events on its
 * WebSocket stream, scheduled checks included), newest first; `add` records a check run from the page.
 */
export function useHealthHistory(connectionId: string) {
  const [entries, setEntries] = useState<HealthEntry[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const token = session.accessToken;
    if (!token) return;
    const origin = window.location.origin.replace(/^http/, 'ws');
    const socket = new WebSocket(`${origin}${platformUrl('mcp-registry', '/registry/stream', { access_token: token })}`);
    socket.onopen = () => {
      setLive(true);
      socket.send(JSON.stringify({ action: 'subscribe', events: ['health-check'] }));
    };
    socket.onclose = () => setLive(false);
    socket.onmessage = (message) => {
      let event: mcpRegistry.RegistryEvent;
      try {
        event = JSON.parse(String(message.data)) as mcpRegistry.RegistryEvent;
      } catch {
        return;
      }
      if (event.type !== 'health-check' || event.connectionId !== connectionId) return;
      const entry = { at: event.timestamp, status: event.health, responseTime: event.responseTime, error: event.error };
      setEntries((current) => [entry, ...current.filter((known) => known.at !== entry.at)].slice(0, MAX_ENTRIES));
    };
    return () => socket.close();
  }, [connectionId]);
  const add = (entry: HealthEntry) => setEntries((current) => [entry, ...current.filter((known) => known.at !== entry.at)].slice(0, MAX_ENTRIES));
  return { entries, live, add };
}
