export * from './environment';
export * from './test-issuer';
export * from './fuzz';
export * from './fake-cms';
export * from './service-process';
