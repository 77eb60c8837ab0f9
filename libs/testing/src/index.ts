export * from './environment';
export * from './test-issuer';
export * from './service-harness';
export * from './service-process';
