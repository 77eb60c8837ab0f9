import type { ConsoleSection } from '../../shell/sections';

/** The workers' durable DAG runs: those in progress, each drawn as its graph, with retry and cancel. */
const runs: ConsoleSection = {
  id: 'runs',
  label: 'Runs',
  order: 40,
  permission: 'workflows:read',
  routes: [
    { index: true, lazy: () => import('./RunsPage').then((m) => ({ Component: m.RunsPage })) },
    { path: ':runId', lazy: () => import('./RunPage').then((m) => ({ Component: m.RunPage })) },
  ],
};
export default runs;
