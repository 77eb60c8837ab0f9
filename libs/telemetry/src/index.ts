export * from './sdk';
export * from './logger';
export * from './request-context';
export * from './active-trace';
