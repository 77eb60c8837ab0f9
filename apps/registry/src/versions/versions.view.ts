import type { registry } from '@platform/contracts';
import type { AgentWithOwner } from '../agent-state.repository';
import type { VersionRow } from './versions.repository';

export function versionBody(agent: AgentWithOwner, row: VersionRow, certification: string | null): registry.AgentVersion {
  return {
    namespace: agent.namespace,
    name: agent.name,
    version: row.version,
    prerelease: row.prerelease,
    latest: agent.latestVersion === row.version,
    format: row.format as 'json' | 'yaml',
    digest: row.digest,
    size: row.size,
    schemaVersion: row.schemaVersion,
    warnings: row.warnings as registry.AgentVersion['warnings'],
    publishedBy: row.publishedBy,
    publishedAt: row.publishedAt.toISOString(),
    unpublished: row.unpublishedAt !== null,
    unpublishedAt: row.unpublishedAt?.toISOString() ?? null,
    certification: certification as registry.AgentVersion['certification'],
    manifestUrl: `/api/v1/agents/${agent.namespace}/${agent.name}/versions/${row.version}/manifest`,
  };
}
