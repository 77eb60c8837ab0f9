export * from './environment';
export * from './test-issuer';
export * from './fuzz';
export * from './service-process';
