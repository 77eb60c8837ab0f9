export { ApiErrorAlert } from './ApiErrorAlert';
export { JsonView } from './JsonView';
export { PageHeader } from './PageHeader';
export { DataTable, type Column } from './DataTable';
export { QueryState } from './QueryState';
export { Pager } from './Pager';
export { fieldErrors, splitList } from './form-errors';
