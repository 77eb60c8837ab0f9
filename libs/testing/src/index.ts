export * from './environment';
export * from './test-issuer';
