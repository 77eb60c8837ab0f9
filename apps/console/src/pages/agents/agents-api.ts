import type { gateway, mesh, registry } from '@platform/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';
import type { ManifestFormat } from './manifest-status';
import { okResponse } from './raw-fetch';

/** The filters the registry's search and list take (registry.AgentFilters), as the page holds them. */
export interface AgentFilters {
  q: string;
  namespace: string;
  capability: string;
  compliance: string;
  agentKind: string;
  kind: string;
  tier: string;
  certified: '' | 'true' | 'false';
}
export const NO_FILTERS: AgentFilters = { q: '', namespace: '', capability: '', compliance: '', agentKind: '', kind: '', tier: '', certified: '' };
export const PAGE_SIZE = 25;

type Page = registry.AgentPage | registry.SearchPage;

/** `GET /search` when there is text to search, `GET /agents` otherwise; the same filters both ways. */
export function useAgentSearch(filters: AgentFilters, offset: number) {
  const { request } = usePlatform();
  const { q, ...rest } = filters;
  const query: Record<string, string | number> = { limit: PAGE_SIZE, offset };
  for (const [key, value] of Object.entries(rest)) if (value.trim()) query[key] = value.trim();
  if (q.trim()) query.q = q.trim();
  return useQuery({
    queryKey: ['registry', 'agents', query],
    queryFn: () => request<Page>('registry', q.trim() ? '/api/v1/search' : '/api/v1/agents', { query }),
    placeholderData: keepPreviousData,
  });
}

export function useAgent(namespace: string, name: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['registry', 'agent', namespace, name],
    queryFn: () => request<registry.Agent>('registry', `/api/v1/agents/${namespace}/${name}`),
  });
}

export function useVersions(namespace: string, name: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['registry', 'versions', namespace, name],
    queryFn: () => request<registry.VersionPage>('registry', `/api/v1/agents/${namespace}/${name}/versions`, { query: { limit: 100 } }),
  });
}

export interface ManifestText {
  text: string;
  /** true when the registry converted it from the format it was published in. */
  converted: boolean;
  etag: string | null;
}

/** The manifest's bytes as the registry answers them: the stored file, or the conversion made at publish. */
export function useManifestText(namespace: string, name: string, version: string, format: ManifestFormat) {
  const { send } = usePlatform();
  return useQuery({
    queryKey: ['registry', 'manifest', namespace, name, version, format],
    queryFn: async (): Promise<ManifestText> => {
      const response = await okResponse(
        await send('registry', `/api/v1/agents/${namespace}/${name}/versions/${version}/manifest`, {
          headers: { accept: format === 'json' ? 'application/json' : 'application/yaml' },
        }),
      );
      return { text: await response.text(), converted: response.headers.get('x-manifest-converted') === 'true', etag: response.headers.get('etag') };
    },
    staleTime: Infinity,
  });
}

export function useCertifications(namespace: string, name: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['registry', 'certifications', namespace, name],
    queryFn: () =>
      request<z.infer<typeof registry.CertificationPage>>('registry', '/api/v1/certifications', { query: { namespace, name, limit: 20 } }),
    // A queued certification finishes on the registry's worker: look again until none is pending.
    refetchInterval: (query) => (query.state.data?.items.some((item) => item.status === 'queued' || item.status === 'running') ? 2_000 : false),
  });
}

export function useRequestCertification(namespace: string, name: string) {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (version: string | undefined) =>
      request<registry.Certification>('registry', `/api/v1/certifications/${namespace}/${name}/request`, { method: 'POST', json: version ? { version } : {} }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['registry', 'certifications', namespace, name] }),
  });
}

/** The agent's instances in the mesh (by namespace and name), polled: health changes as checks run. */
export function useMeshInstances(namespace: string, name: string) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['mesh', 'agents', { namespace, name }],
    queryFn: async () => {
      const list = await request<z.infer<typeof mesh.AgentList>>('mesh', '/api/v1/agents', { query: { namespace, limit: 500 } });
      return list.agents.filter((agent) => agent.name === name);
    },
    refetchInterval: 5_000,
  });
}

/** Publishes a new version of an existing agent with the registry (the bytes as given, in their format). */
export function usePublishVersion(namespace: string, name: string) {
  const { send } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ text, format }: { text: string; format: ManifestFormat }) => {
      const response = await okResponse(
        await send('registry', `/api/v1/agents/${namespace}/${name}/versions`, {
          method: 'POST',
          headers: { 'content-type': format === 'json' ? 'application/json' : 'application/yaml' },
          body: text,
        }),
      );
      return (await response.json()) as registry.PublishResult;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['registry'] }),
  });
}

export function useUnpublishVersion(namespace: string, name: string) {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (version: string) => request<void>('registry', `/api/v1/agents/${namespace}/${name}/versions/${version}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['registry'] }),
  });
}

/** Creates an agent through the gateway's saga: registry, master, mesh, tracing and the deployer in one call. */
export function useCreateAgent() {
  const { request } = usePlatform();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof gateway.CreateAgentBody>) =>
      request<gateway.GatewayAgent>('gateway', '/api/v1/agents', { method: 'POST', json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['registry'] }),
  });
}
