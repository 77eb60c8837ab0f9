import { Badge, Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { QueryState } from '../../ui';
import { useManifestText, useVersions } from './agents-api';
import { ManifestEditor } from './ManifestEditor';
import type { ManifestFormat } from './manifest-status';

/** A version's manifest exactly as the registry serves it, in YAML or JSON (never re-serialised here). */
export function ManifestPanel({ namespace, name }: { namespace: string; name: string }) {
  const versions = useVersions(namespace, name);
  const [version, setVersion] = useState<string>();
  const [format, setFormat] = useState<ManifestFormat>();
  const selected = versions.data?.items.find((item) => item.version === version) ?? versions.data?.items.find((item) => item.latest) ?? versions.data?.items[0];
  const shown = format ?? selected?.format ?? 'yaml';
  const manifest = useManifestText(namespace, name, selected?.version ?? 'latest', shown);

  return (
    <Stack>
      <Group align="flex-end">
        <Select
          label="Version"
          data={(versions.data?.items ?? []).map((item) => ({ value: item.version, label: item.latest ? `${item.version} (latest)` : item.version }))}
          value={selected?.version ?? null}
          onChange={(value) => value && setVersion(value)}
          allowDeselect={false}
          w={220}
        />
        <SegmentedControl
          aria-label="Manifest format"
          value={shown}
          onChange={(value) => setFormat(value as ManifestFormat)}
          data={[
            { value: 'yaml', label: 'YAML' },
            { value: 'json', label: 'JSON' },
          ]}
        />
        {manifest.data && (
          <Badge variant="light" color={manifest.data.converted ? 'gray' : 'teal'}>
            {manifest.data.converted ? `converted from ${selected?.format.toUpperCase()} at publish time` : 'as published, byte for byte'}
          </Badge>
        )}
      </Group>
      <QueryState query={manifest}>
        {(data) => (
          <Stack gap={4}>
            <ManifestEditor label={`Manifest of ${namespace}/${name} ${selected?.version ?? ''}`} value={data.text} format={shown} readOnly minHeight={200} />
            <Text size="xs" c="dimmed">
              {new TextEncoder().encode(data.text).length.toLocaleString()} bytes{data.etag ? ` · ETag ${data.etag}` : ''}
            </Text>
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
