import type { ConsoleSection } from '../../shell/sections';

/** Visual workflows of the workflow engine: list, canvas editor, runs watched live and replayed. */
const workflows: ConsoleSection = {
  id: 'workflows',
  label: 'Workflows',
  order: 30,
  permission: 'workflows:read',
  routes: [
    { index: true, lazy: () => import('./list/WorkflowsPage').then((m) => ({ Component: m.WorkflowsPage })) },
    { path: 'new', lazy: () => import('./editor/EditorPage').then((m) => ({ Component: m.EditorPage })) },
    { path: ':workflowId', lazy: () => import('./editor/EditorPage').then((m) => ({ Component: m.EditorPage })) },
    { path: ':workflowId/executions/:executionId', lazy: () => import('./executions/ExecutionPage').then((m) => ({ Component: m.ExecutionPage })) },
  ],
};
export default workflows;
