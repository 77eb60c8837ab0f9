import { adminCredentials, expect, expectAccessible, gatewayUrl, signIn, test } from './fixtures';
import { startIdentityProvider, type IdentityProvider } from './identity-provider';
import { OAUTH_PROVIDER } from './paths';

test.describe('sign-in', () => {
  test('a wrong password shows the refusal and stays on sign-in', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.getByRole('textbox', { name: 'Username' }).fill(adminCredentials().username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Sign-in failed');
    await expect(alert).toContainText('HTTP 401');
    await expect(page).toHaveURL(/\/sign-in$/);
  });

  test('the right password lands on the Overview, and a reload keeps the session', async ({ page }) => {
    await signIn(page);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await expect(page.getByTestId('signed-in-user')).toHaveText(adminCredentials().username);
  });

  test('a page opened signed out comes back after sign-in', async ({ page }) => {
    await page.goto('/admin/audit');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fadmin%2Faudit$/);
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await signIn(page);
    await expect(page).toHaveURL(/\/admin\/audit$/);
  });

  test('sign out revokes the session: a reload shows sign-in', async ({ page, context }) => {
    await signIn(page);
    const cookie = (await context.cookies()).find((c) => c.name === 'platform_session');
    expect(cookie?.httpOnly).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    // The refresh token itself is revoked at auth, not only dropped by this browser.
    const replayed = await fetch(`${gatewayUrl()}/api/v1/console/session/refresh`, {
      method: 'POST',
      headers: { 'X-Platform-Console': '1', cookie: `platform_session=${cookie!.value}` },
    });
    expect(replayed.status).toBe(401);
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in$/);
  });

  test('the sign-in page is accessible', async ({ page }) => {
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await expectAccessible(page);
  });
});

test.describe('sign-in with an identity provider', () => {
  let idp: IdentityProvider;
  test.beforeAll(async () => {
    idp = await startIdentityProvider();
  });
  test.afterAll(async () => {
    await idp?.stop();
  });

  test("the provider's button signs in through it, with the roles its groups map to", async ({ page }) => {
    await idp.choose('alice');
    await page.goto('/sign-in');
    await page.getByRole('link', { name: `Sign in with ${OAUTH_PROVIDER}` }).click();
    await expect(page).toHaveURL(`${gatewayUrl()}/`);
    await expect(page.getByTestId('signed-in-user')).not.toBeEmpty();
    // alice is in platform/admins: auth:admin through the default role mappings.
    await expect(page.getByRole('link', { name: 'Admin' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  });

  test("a refusal at the provider comes back to sign-in with the provider's reason", async ({ page }) => {
    await page.goto(`/api/v1/console/oauth/${OAUTH_PROVIDER}/callback?error=access_denied`);
    await expect(page).toHaveURL(/\/sign-in\?oauth_error=access_denied$/);
    await expect(page.getByRole('alert')).toContainText("The identity provider's sign-in did not complete (access_denied)");
  });
});
