import { Badge, Button, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import type { registry } from '@platform/contracts';
import { ApiErrorAlert, DataTable, QueryState, type Column } from '../../ui';
import { useUnpublishVersion, useVersions } from './agents-api';

export function VersionsPanel({ namespace, name }: { namespace: string; name: string }) {
  const versions = useVersions(namespace, name);
  const unpublish = useUnpublishVersion(namespace, name);
  const columns: Column<registry.AgentVersion>[] = [
    {
      key: 'version',
      header: 'Version',
      render: (version) => (
        <Group gap={4}>
          <Text fw={500}>{version.version}</Text>
          {version.latest && <Badge size="sm">latest</Badge>}
          {version.prerelease && (
            <Badge size="sm" variant="outline">
              pre-release
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'format', header: 'Format', render: (version) => version.format.toUpperCase() },
    { key: 'size', header: 'Size', render: (version) => `${version.size.toLocaleString()} B` },
    { key: 'digest', header: 'Digest', render: (version) => <Text ff="monospace" size="xs">{version.digest.slice(0, 19)}…</Text> },
    { key: 'certification', header: 'Certification', render: (version) => version.certification ?? '—' },
    { key: 'published', header: 'Published', render: (version) => `${new Date(version.publishedAt).toLocaleString()} by ${version.publishedBy}` },
    {
      key: 'actions',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      render: (version) => (
        <Button
          size="xs"
          variant="subtle"
          color="red"
          loading={unpublish.isPending && unpublish.variables === version.version}
          onClick={() => {
            if (window.confirm(`Unpublish ${namespace}/${name} ${version.version}? Its number is never reused.`)) unpublish.mutate(version.version);
          }}
        >
          Unpublish
        </Button>
      ),
    },
  ];
  return (
    <Stack>
      {unpublish.isError && <ApiErrorAlert error={unpublish.error} title="Not unpublished" />}
      <QueryState query={versions}>
        {(page) => <DataTable rows={page.items} columns={columns} rowKey={(version) => version.version} empty="No published version." />}
      </QueryState>
    </Stack>
  );
}
