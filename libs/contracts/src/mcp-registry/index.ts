export * from './connection';
export * from './discovery';
export * from './health-check';
export * from './registry';
export * from './stream';
