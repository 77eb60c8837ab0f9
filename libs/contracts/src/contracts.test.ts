import { AccessTokenClaims, ErrorBody, PageQuery, Permission, QueryBoolean } from './index';

describe('shared contracts', () => {
  it('pages with limit 50 by default and at most 500', () => {
    expect(PageQuery.parse({})).toEqual({ limit: 50, offset: 0 });
    expect(PageQuery.parse({ limit: '500', offset: '10' })).toEqual({ limit: 500, offset: 10 });
    expect(PageQuery.safeParse({ limit: '501' }).success).toBe(false);
    expect(PageQuery.safeParse({ offset: '-1' }).success).toBe(false);
  });

  it('reads query booleans as words, not truthiness', () => {
    expect(QueryBoolean.parse('false')).toBe(false);
    expect(QueryBoolean.parse('true')).toBe(true);
    expect(QueryBoolean.safeParse('0').success).toBe(false);
  });

  it('accepts permissions of the shape <resource>:<action> or *', () => {
    for (const ok of ['*', 'registry:read', 'registry:*', 'mcp-registry:admin']) expect(Permission.safeParse(ok).success).toBe(true);
    for (const bad of ['registry', 'Registry:read', 'a:b:c', ':read', '']) expect(Permission.safeParse(bad).success).toBe(false);
  });

  it('describes the one error body', () => {
    expect(ErrorBody.safeParse({ error: { type: 'not_found_error', code: 'not_found', message: 'x' }, requestId: 'r' }).success).toBe(true);
    expect(ErrorBody.safeParse({ error: { type: 'teapot', code: 'x', message: 'x' }, requestId: 'r' }).success).toBe(false);
  });

  it('requires the access-token claims of spec 1', () => {
    const claims = { sub: 's', iss: 'i', aud: ['a'], exp: 2, iat: 1, nbf: 1, jti: 'j', scope: '', roles: [], permissions: [], client_id: 'c' };
    expect(AccessTokenClaims.safeParse(claims).success).toBe(true);
    const { jti: _jti, ...withoutJti } = claims;
    expect(AccessTokenClaims.safeParse(withoutJti).success).toBe(false);
  });
});
