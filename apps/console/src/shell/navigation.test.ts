import { safeNext, signInTarget } from './navigation';

describe('navigation around sign-in', () => {
  it('returns only to a path of the console', () => {
    expect(safeNext('/admin/users?x=1')).toBe('/admin/users?x=1');
    expect(safeNext(null)).toBe('/');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext('//evil.example/')).toBe('/');
    expect(safeNext('/\\evil.example/')).toBe('/');
    expect(safeNext('/sign-in?next=/admin')).toBe('/');
  });

  it('sends a signed-out visit to sign-in with where it was going', () => {
    expect(signInTarget('/', '')).toBe('/sign-in');
    expect(signInTarget('/admin/audit', '?eventType=login')).toBe('/sign-in?next=%2Fadmin%2Faudit%3FeventType%3Dlogin');
  });

  it("carries the identity provider's failure from the gateway's callback to the sign-in page", () => {
    expect(signInTarget('/', '?oauth_error=access_denied')).toBe('/sign-in?oauth_error=access_denied');
  });
});
