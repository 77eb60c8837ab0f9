import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { usePlatform } from '../../../api';
import { DataTable, Pager, QueryState } from '../../../ui';
import { authApi, type User } from '../auth-api';
import { CreateUserModal } from './CreateUserModal';

const LIMIT = 50;

export function UsersTab() {
  const platform = usePlatform();
  const [offset, setOffset] = useState(0);
  const [creating, { open, close }] = useDisclosure();
  const query = useQuery({
    queryKey: ['admin', 'users', offset],
    queryFn: () => authApi.users(platform, { limit: LIMIT, offset }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <Group justify="flex-end">
        <Button onClick={open}>New user</Button>
      </Group>
      <QueryState query={query}>
        {(list) => (
          <>
            <DataTable<User>
              caption="Users"
              rows={list.users}
              rowKey={(user) => user.id}
              columns={[
                { key: 'username', header: 'Username', render: (user) => user.username },
                { key: 'name', header: 'Name', render: (user) => user.name ?? '' },
                { key: 'roles', header: 'Roles', render: (user) => <Labels values={user.roles} /> },
                { key: 'permissions', header: 'Permissions', render: (user) => <Labels values={user.permissions} color="gray" /> },
                { key: 'source', header: 'Signs in with', render: (user) => user.idpProvider ?? 'password' },
                { key: 'state', header: 'State', render: (user) => (user.disabled ? <Badge color="red">disabled</Badge> : 'active') },
                { key: 'lastLogin', header: 'Last sign-in', render: (user) => formatTime(user.lastLoginAt) },
              ]}
            />
            <Pager total={list.total} limit={LIMIT} offset={offset} onOffset={setOffset} />
          </>
        )}
      </QueryState>
      <CreateUserModal opened={creating} onClose={close} />
    </Stack>
  );
}

function Labels({ values, color }: { values: string[]; color?: string }) {
  if (!values.length)
    return (
      <Text size="sm" c="dimmed">
        none
      </Text>
    );
  return (
    <Group gap={4}>
      {values.map((value) => (
        <Badge key={value} variant="light" color={color} tt="none">
          {value}
        </Badge>
      ))}
    </Group>
  );
}

export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC' : 'never';
}
