import type { ConsoleSection } from '../../shell/sections';

/** Evaluations: datasets and their examples, evaluations started on them, their results as a table and a chart. */
const evaluations: ConsoleSection = {
  id: 'evaluations',
  label: 'Evaluations',
  order: 610,
  permission: 'traces:read',
  routes: [
    { index: true, lazy: () => import('./EvaluationsPage').then((m) => ({ Component: m.EvaluationsPage })) },
    { path: 'new', lazy: () => import('./NewEvaluationPage').then((m) => ({ Component: m.NewEvaluationPage })) },
    { path: 'datasets', lazy: () => import('./datasets/DatasetsPage').then((m) => ({ Component: m.DatasetsPage })) },
    { path: 'datasets/:datasetId', lazy: () => import('./datasets/DatasetPage').then((m) => ({ Component: m.DatasetPage })) },
    { path: ':evaluationId', lazy: () => import('./EvaluationPage').then((m) => ({ Component: m.EvaluationPage })) },
  ],
};
export default evaluations;
