export * from './dead-letters';
export * from './queues';
