import type { ConsoleSection } from '../../shell/sections';

/** Traces: projects, span search and a trace as a waterfall (`/traces/trace/:traceId`, linked from elsewhere). */
const traces: ConsoleSection = {
  id: 'traces',
  label: 'Traces',
  order: 600,
  permission: 'traces:read',
  routes: [
    { index: true, lazy: () => import('./projects/ProjectsPage').then((m) => ({ Component: m.ProjectsPage })) },
    { path: 'projects/:project', lazy: () => import('./search/SpanSearchPage').then((m) => ({ Component: m.SpanSearchPage })) },
    { path: 'trace/:traceId', lazy: () => import('./trace/TracePage').then((m) => ({ Component: m.TracePage })) },
  ],
};
export default traces;
