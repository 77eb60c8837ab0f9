import { Alert, Anchor, Badge, Group, Stack, Tabs, Text } from '@mantine/core';
import type { registry } from '@platform/contracts';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { PageHeader, QueryState } from '../../ui';
import { useAgent } from './agents-api';
import { CertificationPanel } from './CertificationPanel';
import { LifecycleActions } from './LifecycleActions';
import { ManifestPanel } from './ManifestPanel';
import { MeshStatusPanel } from './MeshStatusPanel';
import { StatusBadge } from './StatusBadge';
import { VersionsPanel } from './VersionsPanel';

/** One agent of the registry: its versions, manifest, certification and live mesh status. */
export function AgentDetailPage() {
  const { namespace = '', name = '' } = useParams();
  const agent = useAgent(namespace, name);
  const [changed, setChanged] = useState<registry.PublishResult>();
  return (
    <Stack>
      <Anchor component={Link} to="/agents" size="sm">
        ← Agents
      </Anchor>
      <QueryState query={agent}>
        {(data) => (
          <Stack>
            <PageHeader
              title={`${data.namespace}/${data.name}`}
              description={data.displayName ?? data.description ?? undefined}
              actions={<LifecycleActions agent={data} onChanged={setChanged} />}
            />
            {changed && (
              <Alert color="teal" role="status" withCloseButton onClose={() => setChanged(undefined)} closeButtonLabel="Dismiss">
                {changed.agent.namespace}/{changed.agent.name} {changed.version.version} is {changed.agent.status}.
              </Alert>
            )}
            <Group gap="xs">
              <StatusBadge status={data.status} />
              {data.latestVersion && <Badge variant="outline">latest {data.latestVersion}</Badge>}
              {data.tier && <Badge variant="light">{data.tier}</Badge>}
              {data.certified && <Badge color="teal">certified {data.certifiedVersion}</Badge>}
              {data.capabilities.map((capability) => (
                <Badge key={capability} variant="dot">
                  {capability}
                </Badge>
              ))}
            </Group>
            <Text size="sm" c="dimmed">
              Owner {data.owner}
              {data.team ? ` · team ${data.team}` : ''} · updated {new Date(data.updatedAt).toLocaleString()}
            </Text>
            <Tabs defaultValue="versions" keepMounted={false}>
              <Tabs.List>
                <Tabs.Tab value="versions">Versions</Tabs.Tab>
                <Tabs.Tab value="manifest">Manifest</Tabs.Tab>
                <Tabs.Tab value="certification">Certification</Tabs.Tab>
                <Tabs.Tab value="mesh">Mesh</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="versions" pt="md">
                <VersionsPanel namespace={data.namespace} name={data.name} />
              </Tabs.Panel>
              <Tabs.Panel value="manifest" pt="md">
                <ManifestPanel namespace={data.namespace} name={data.name} />
              </Tabs.Panel>
              <Tabs.Panel value="certification" pt="md">
                <CertificationPanel namespace={data.namespace} name={data.name} latest={data.latestVersion} />
              </Tabs.Panel>
              <Tabs.Panel value="mesh" pt="md">
                <MeshStatusPanel namespace={data.namespace} name={data.name} />
              </Tabs.Panel>
            </Tabs>
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
