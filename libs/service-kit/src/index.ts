export * from './authentication';
export * from './bootstrap';
export * from './service';
export * from './shutdown';
