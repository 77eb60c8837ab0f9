export * from './database';
export * from './redis';
