import { Badge, Button, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePlatform } from '../../../api';
import { ApiErrorAlert, DataTable, Pager, QueryState } from '../../../ui';
import { authApi, type ApiKey } from '../auth-api';
import { formatTime } from '../users/UsersTab';
import { CreateApiKeyModal } from './CreateApiKeyModal';

const LIMIT = 50;

function keyState(key: ApiKey, now = Date.now()): { label: string; color: string } {
  if (key.revokedAt && Date.parse(key.revokedAt) <= now) return { label: 'revoked', color: 'red' };
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return { label: 'expired', color: 'gray' };
  if (key.revokedAt) return { label: 'rotating out', color: 'orange' };
  return { label: 'active', color: 'green' };
}

export function ApiKeysTab() {
  const platform = usePlatform();
  const queryClient = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [creating, { open, close }] = useDisclosure();
  const query = useQuery({
    queryKey: ['admin', 'api-keys', offset],
    queryFn: () => authApi.apiKeys(platform, { limit: LIMIT, offset }),
    placeholderData: keepPreviousData,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => authApi.revokeApiKey(platform, id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin', 'api-keys'] }),
  });
  return (
    <Stack>
      <Group justify="flex-end">
        <Button onClick={open}>New API key</Button>
      </Group>
      {revoke.isError && <ApiErrorAlert error={revoke.error} title="The key was not revoked" />}
      <QueryState query={query}>
        {(list) => (
          <>
            <DataTable<ApiKey>
              caption="Service API keys"
              rows={list.apiKeys}
              rowKey={(key) => key.id}
              columns={[
                { key: 'service', header: 'Service', render: (key) => key.service },
                { key: 'prefix', header: 'Key', render: (key) => <Text ff="monospace" size="sm">{`ap_${key.prefix}_…`}</Text> },
                { key: 'permissions', header: 'Permissions', render: (key) => key.permissions.join(' ') },
                {
                  key: 'state',
                  header: 'State',
                  render: (key) => {
                    const state = keyState(key);
                    return <Badge color={state.color}>{state.label}</Badge>;
                  },
                },
                { key: 'created', header: 'Created', render: (key) => formatTime(key.createdAt) },
                { key: 'used', header: 'Last used', render: (key) => formatTime(key.lastUsedAt) },
                {
                  key: 'actions',
                  header: <VisuallyHidden>Actions</VisuallyHidden>,
                  render: (key) =>
                    !key.revokedAt && (
                      <Button
                        size="xs"
                        color="red"
                        variant="light"
                        loading={revoke.isPending && revoke.variables === key.id}
                        aria-label={`Revoke the key of ${key.service} (${key.prefix})`}
                        onClick={() => window.confirm(`Revoke the key ${key.prefix} of ${key.service}? Calls with it fail at once.`) && revoke.mutate(key.id)}
                      >
                        Revoke
                      </Button>
                    ),
                },
              ]}
            />
            <Pager total={list.total} limit={LIMIT} offset={offset} onOffset={setOffset} />
          </>
        )}
      </QueryState>
      <CreateApiKeyModal opened={creating} onClose={close} />
    </Stack>
  );
}
