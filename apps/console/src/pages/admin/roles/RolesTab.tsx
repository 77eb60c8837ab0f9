import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { usePlatform } from '../../../api';
import { DataTable, QueryState } from '../../../ui';
import { authApi } from '../auth-api';
import { formatTime } from '../users/UsersTab';
import { mappedTeams, summarizeRoles, type RoleSummary } from './roles';

const USERS_READ = 500;

export function RolesTab() {
  const platform = usePlatform();
  const users = useQuery({ queryKey: ['admin', 'users', 'roles'], queryFn: () => authApi.users(platform, { limit: USERS_READ, offset: 0 }) });
  const teams = useQuery({ queryKey: ['admin', 'teams'], queryFn: () => authApi.teams(platform, { limit: 500, offset: 0 }) });
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Identity-provider groups map to roles, permissions and teams through auth&apos;s <code>AUTH_ROLE_MAPPINGS</code> at each sign-in. These
        are the roles users hold now and the teams the mappings created.
      </Text>
      <Title order={2} size="h5">
        Roles held
      </Title>
      <QueryState query={users}>
        {(list) => (
          <>
            <DataTable<RoleSummary>
              caption="Roles and the permissions their holders have"
              rows={summarizeRoles(list.users)}
              rowKey={(row) => row.role}
              columns={[
                { key: 'role', header: 'Role', render: (row) => <Badge variant="light">{row.role}</Badge> },
                { key: 'users', header: 'Users', render: (row) => row.users },
                {
                  key: 'permissions',
                  header: 'Permissions held',
                  render: (row) => (
                    <Group gap={4}>
                      {row.permissions.map((permission) => (
                        <Badge key={permission} variant="outline" color="gray" tt="none">
                          {permission}
                        </Badge>
                      ))}
                    </Group>
                  ),
                },
              ]}
            />
            {list.total > list.users.length && (
              <Text size="xs" c="dimmed">
                From the first {list.users.length} of {list.total} users.
              </Text>
            )}
          </>
        )}
      </QueryState>
      <Title order={2} size="h5">
        Teams from identity providers
      </Title>
      <QueryState query={teams}>
        {(list) => (
          <DataTable
            caption="Teams created by role mappings"
            rows={mappedTeams(list.teams)}
            rowKey={(team) => team.id}
            empty="No team was created by a role mapping yet."
            columns={[
              { key: 'name', header: 'Team', render: (team) => team.name },
              { key: 'provider', header: 'Provider', render: (team) => team.provider },
              { key: 'created', header: 'Created', render: (team) => formatTime(team.createdAt) },
            ]}
          />
        )}
      </QueryState>
    </Stack>
  );
}
