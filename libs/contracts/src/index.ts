export * from './errors';
export * from './health';
export * from './paging';
export * from './token';
