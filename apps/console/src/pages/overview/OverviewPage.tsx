import { Stack } from '@mantine/core';
import { PageHeader } from '../../ui';
import { CountsPanel } from './CountsPanel';
import { ReadinessPanel } from './ReadinessPanel';

export function OverviewPage() {
  return (
    <Stack gap="xl">
      <PageHeader title="Overview" description="Every service's readiness and what the platform holds." />
      <ReadinessPanel />
      <CountsPanel />
    </Stack>
  );
}
