export * from './environment';
export * from './test-issuer';
export * from './fuzz';
export * from './service-process';
export * from './service-harness';
export * from './fake-cms';
export * from './tcp-proxy';
