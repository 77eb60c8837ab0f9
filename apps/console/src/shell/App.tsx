import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { PlatformError } from '../api';
import { sections } from './discovered';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';
import { RequireSession } from './RequireSession';
import { sectionRoutes } from './sections';
import { SignInPage } from './SignInPage';
import { cssVariablesResolver, theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change by asking again; a failure or an unreachable gateway may.
      retry: (count, error) => count < 2 && !(error instanceof PlatformError && error.status >= 400 && error.status < 500),
      staleTime: 5_000,
      refetchOnWindowFocus: false,
    },
  },
});

export const routes: RouteObject[] = [
  { path: '/sign-in', Component: SignInPage },
  {
    path: '/',
    element: (
      <RequireSession>
        <Layout sections={sections} />
      </RequireSession>
    ),
    children: [...sectionRoutes(sections), { path: '*', Component: NotFoundPage }],
  },
];

const router = createBrowserRouter(routes);

export function App() {
  return (
    <MantineProvider defaultColorScheme="light" theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
