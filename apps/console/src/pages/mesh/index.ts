import type { ConsoleSection } from '../../shell/sections';

const mesh: ConsoleSection = {
  id: 'mesh',
  label: 'Mesh',
  order: 50,
  permission: 'mesh:read',
  routes: [{ index: true, lazy: () => import('./MeshPage').then((m) => ({ Component: m.MeshPage })) }],
};
export default mesh;
