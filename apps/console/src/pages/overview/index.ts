import type { ConsoleSection } from '../../shell/sections';

const overview: ConsoleSection = {
  id: 'overview',
  label: 'Overview',
  order: 0,
  path: '/',
  routes: [{ index: true, lazy: () => import('./OverviewPage').then((m) => ({ Component: m.OverviewPage })) }],
};
export default overview;
