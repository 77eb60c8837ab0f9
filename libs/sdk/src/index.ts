export * from './services';
export * from './errors';
export * from './authenticated-fetch';
export * from './client';
export * from './session';
export * from './pagination';
export * from './streams';
