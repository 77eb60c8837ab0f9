import { Stack } from '@mantine/core';
import { PageHeader } from '../../ui';
import { UsersPanel } from './UsersPanel';

export function AdminPage() {
  return (
    <Stack>
      <PageHeader title="Admin" description="Users, API keys, role mappings and the audit log of auth." />
      <UsersPanel />
    </Stack>
  );
}
