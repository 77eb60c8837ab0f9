import { AppShell, Burger, Button, Center, Group, Loader, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../api';
import { sectionPath, type ConsoleSection } from './sections';

/** The signed-in frame: a header with the user and sign-out, the sections in the sidebar, the page. */
export function Layout({ sections }: { sections: readonly ConsoleSection[] }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { user, can, signOut } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const visible = sections.filter((section) => can(section.permission));

  const onSignOut = async () => {
    try {
      await signOut();
    } finally {
      // Signed out here even when the gateway could not be told: nothing of the session stays.
      queryClient.clear();
      navigate('/sign-in', { replace: true });
    }
  };

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              Agent platform
            </Title>
          </Group>
          <Group gap="sm">
            <Text size="sm" data-testid="signed-in-user">
              {user?.username}
            </Text>
            <Button variant="default" size="xs" onClick={() => void onSignOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Sections">
        {visible.map((section) => (
          <NavLink
            key={section.id}
            component={Link}
            to={sectionPath(section)}
            active={isActive(sectionPath(section), pathname)}
            label={section.label}
            leftSection={section.icon}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense
          fallback={
            <Center p="xl">
              <Loader aria-label="Loading the page" />
            </Center>
          }
        >
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

function isActive(path: string, pathname: string): boolean {
  return path === '/' ? pathname === '/' : pathname === path || pathname.startsWith(`${path}/`);
}
