import { Stack, Tabs } from '@mantine/core';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { PageHeader } from '../../ui';

const TABS = [
  { value: 'users', label: 'Users' },
  { value: 'api-keys', label: 'API keys' },
  { value: 'roles', label: 'Roles' },
  { value: 'audit', label: 'Audit log' },
];

/** Admin's tabs, each its own URL (`/admin/users`, …) so that every one is linkable. */
export function AdminLayout() {
  const navigate = useNavigate();
  const current = useLocation().pathname.split('/')[2] ?? 'users';
  return (
    <Stack>
      <PageHeader title="Admin" description="Users, API keys, roles and the audit log of the auth service." />
      <Tabs value={current} onChange={(value) => value && navigate(`/admin/${value}`)} keepMounted={false}>
        <Tabs.List>
          {TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Outlet />
    </Stack>
  );
}
