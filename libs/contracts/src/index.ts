export * from './errors';
export * from './health';
export * from './paging';
export * from './token';
export * as auth from './auth';
export * as mcpRegistry from './mcp-registry';
export * as registry from './registry';
export * as master from './master';
export * as workers from './workers';
