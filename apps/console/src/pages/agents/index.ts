import type { ConsoleSection } from '../../shell/sections';

const agents: ConsoleSection = {
  id: 'agents',
  label: 'Agents',
  order: 10,
  permission: 'registry:read',
  routes: [
    { index: true, lazy: () => import('./AgentsPage').then((m) => ({ Component: m.AgentsPage })) },
    { path: 'publish', lazy: () => import('./PublishPage').then((m) => ({ Component: m.PublishPage })) },
    { path: ':namespace/:name', lazy: () => import('./AgentDetailPage').then((m) => ({ Component: m.AgentDetailPage })) },
  ],
};
export default agents;
