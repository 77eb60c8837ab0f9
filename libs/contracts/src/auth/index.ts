export * from './admin';
export * from './oauth';
export * from './tokens';
export * from './teams';
