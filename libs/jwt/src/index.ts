export * from './compact-jws';
export * from './key-resolver';
export * from './middleware';
export * from './permissions';
export * from './revocation';
export * from './token-error';
export * from './verifier';
