import { Stack } from '@mantine/core';
import { PageHeader } from '../../ui';
import { ReadinessPanel } from './ReadinessPanel';

export function OverviewPage() {
  return (
    <Stack>
      <PageHeader title="Overview" description="Every service's readiness and what the platform holds." />
      <ReadinessPanel />
    </Stack>
  );
}
