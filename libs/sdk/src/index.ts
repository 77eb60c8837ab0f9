export * from './services';
export * from './errors';
export * from './authenticated-fetch';
export * from './client';
