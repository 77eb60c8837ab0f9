import { Center, Loader } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../api';
import { signInTarget } from './navigation';

/** The signed-in part of the console: until the session is known a loader, then sign-in or the page. */
export function RequireSession({ children }: { children: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'loading')
    return (
      <Center h="100vh">
        <Loader aria-label="Loading the session" />
      </Center>
    );
  if (state.status === 'signed-out') return <Navigate to={signInTarget(location.pathname, location.search)} replace />;
  return <>{children}</>;
}
