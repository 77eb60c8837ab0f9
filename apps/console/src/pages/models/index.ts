import type { ConsoleSection } from '../../shell/sections';

const models: ConsoleSection = {
  id: 'models',
  label: 'Models',
  order: 40,
  permission: 'models:read',
  routes: [{ index: true, lazy: () => import('./ModelsPage').then((m) => ({ Component: m.ModelsPage })) }],
};
export default models;
