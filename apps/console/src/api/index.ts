export { PlatformError, describeError } from './errors';
export { SERVICES, platformUrl, sdkName, type ServiceName, type ApiRequest, type ApiFetch, type ApiSend } from './client';
export { hasPermission } from './permissions';
export { usePlatform, useSession, session, type Platform, type SessionView } from './platform';
export type { SessionUser, OAuthProvider } from './session-schema';
export { unwrap, openStream, executionEvents, paginate } from '@platform/sdk';
