import { Badge, Group } from '@mantine/core';
import { auth } from '@platform/contracts';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';
import { DataTable, QueryState } from '../../ui';

type User = z.infer<typeof auth.User>;

export function UsersPanel() {
  const platform = usePlatform();
  const query = useQuery({
    queryKey: ['admin', 'users'],
    queryFn: async () => auth.UserList.parse(await platform.request('auth', '/api/v1/auth/admin/users', { query: { limit: 100 } })),
  });
  return (
    <QueryState query={query}>
      {(list) => (
        <DataTable<User>
          rows={list.users}
          rowKey={(user) => user.id}
          columns={[
            { key: 'username', header: 'Username', render: (user) => user.username },
            { key: 'roles', header: 'Roles', render: (user) => <Group gap={4}>{user.roles.map((role) => <Badge key={role} variant="light">{role}</Badge>)}</Group> },
          ]}
        />
      )}
    </QueryState>
  );
}
