import { Anchor, Stack, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { PageHeader } from '../ui';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <Stack>
      <PageHeader title="Page not found" />
      <Text>
        The console has no page at <code>{pathname}</code>.{' '}
        <Anchor component={Link} to="/">
          Back to the overview
        </Anchor>
      </Text>
    </Stack>
  );
}
