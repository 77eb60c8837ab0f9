import { hasPermission } from './permissions';

describe('hasPermission', () => {
  it.each([
    [['*'], 'auth:admin', true],
    [['auth:*'], 'auth:admin', true],
    [['auth:admin'], 'auth:admin', true],
    [['auth:read'], 'auth:admin', false],
    [['authx:*'], 'auth:admin', false],
    [[], undefined, true],
    [undefined, 'auth:admin', false],
  ])('%j covers %s: %s', (granted, required, expected) => {
    expect(hasPermission(granted as string[] | undefined, required)).toBe(expected);
  });
});
