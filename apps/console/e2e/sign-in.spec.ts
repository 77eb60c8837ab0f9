import { adminCredentials, expect, expectAccessible, signIn, test } from './fixtures';

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

  test('sign out revokes the session: a reload shows sign-in', async ({ page }) => {
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
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
