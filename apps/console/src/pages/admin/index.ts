import type { ConsoleSection } from '../../shell/sections';

const admin: ConsoleSection = {
  id: 'admin',
  label: 'Admin',
  order: 1000,
  permission: 'auth:admin',
  routes: [
    { index: true, lazy: () => import('./AdminPage').then((m) => ({ Component: m.AdminPage })) },
  ],
};
export default admin;
