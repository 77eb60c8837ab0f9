import { describeError, PlatformError, platformErrorFrom } from './errors';

const body = (status: string, code: string, message: string, details?: unknown) =>
  JSON.stringify({ error: { type: status, code, message, details }, requestId: 'req-1' });

describe('errors of the API', () => {
  it("reads DESIGN.md's error shape into a PlatformError", () => {
    const error = platformErrorFrom(403, body('authorization_error', 'insufficient_permissions', 'auth:admin is required', { required: 'auth:admin' }));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_permissions', message: 'auth:admin is required', details: { required: 'auth:admin' }, requestId: 'req-1' });
  });

  it('keeps the status of a body that is not the error shape, with what it said', () => {
    expect(platformErrorFrom(502, '<html>Bad gateway</html>')).toMatchObject({ status: 502, code: 'http_502', message: '<html>Bad gateway</html>' });
    expect(platformErrorFrom(500, '')).toMatchObject({ status: 500, code: 'http_500', message: 'HTTP 500' });
  });

  it('says a 403 as "Not permitted" with the API\'s message', () => {
    const described = describeError(new PlatformError(403, 'insufficient_permissions', 'Missing permission auth:admin'));
    expect(described).toEqual({ title: 'Not permitted', message: 'Missing permission auth:admin', status: 403, code: 'insufficient_permissions' });
    expect(describeError(new PlatformError(0, 'network_error', 'down')).title).toBe('Unreachable');
    expect(describeError(new PlatformError(503, 'dependency_unavailable', 'x')).title).toBe('The platform failed');
    expect(describeError(new Error('boom'))).toEqual({ title: 'Error', message: 'boom' });
  });
});
