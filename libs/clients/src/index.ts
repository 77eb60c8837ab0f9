export * from './service-client';
export * from './service-auth';
export * from './local-models.client';
export * from './mcp-registry.client';
export * from './cms.client';
export * from './registry';
export * from './workers';
