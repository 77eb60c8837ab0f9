import type { ConsoleSection } from '../../shell/sections';

const mcp: ConsoleSection = {
  id: 'mcp',
  label: 'MCP servers',
  order: 30,
  permission: 'mcp:read',
  routes: [
    { index: true, lazy: () => import('./McpPage').then((m) => ({ Component: m.McpPage })) },
    { path: ':connectionId', lazy: () => import('./ConnectionPage').then((m) => ({ Component: m.ConnectionPage })) },
  ],
};
export default mcp;
