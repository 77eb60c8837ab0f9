import { createUser, expect, expectAccessible, signIn, test } from './fixtures';

test.describe('admin', () => {
  test("a user without auth:admin sees the API's 403, not a broken page", async ({ page }) => {
    const user = await createUser(['agents:read']);
    await signIn(page, user);
    await expect(page.getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/admin\/users$/);
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
    await expect(alert).toContainText('insufficient_permissions');
    await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible();
  });

  test('the admin creates a user, who then appears in the list', async ({ page }) => {
    await signIn(page);
    await page.getByRole('link', { name: 'Admin' }).click();
    await expect(page).toHaveURL(/\/admin\/users$/);
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Username').fill('x');
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('short');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toContainText('a username is 3 to 64 letters');
    await expect(dialog).toContainText('passwords have at least 12 characters');
    const username = `ops-${Date.now().toString(36)}`;
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('a-long-enough-password');
    await dialog.getByLabel('Permissions').fill('agents:read workflows:read');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    const row = page.getByRole('row').filter({ hasText: username });
    await expect(row).toContainText('agents:read');
    await expect(row).toContainText('workflows:read');

    // The same username again: auth's refusal, shown in the dialog, which stays open.
    await page.getByRole('button', { name: 'New user' }).click();
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByRole('textbox', { name: 'Password', exact: true }).fill('another-long-password');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByRole('alert')).toContainText('HTTP 409');
    await expect(dialog).toBeVisible();
  });

  test('an API key is shown once when issued, then only by its prefix, and can be revoked', async ({ page }) => {
    await signIn(page);
    await page.goto('/admin/api-keys');
    await page.getByRole('button', { name: 'New API key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Service').fill('console-e2e');
    await dialog.getByLabel('Permissions').fill('agents:read');
    await dialog.getByRole('button', { name: 'Issue the key' }).click();
    const key = (await dialog.getByTestId('issued-api-key').textContent())!.trim();
    expect(key).toMatch(/^ap_[A-Za-z0-9]+_/);
    await expect(dialog.getByRole('button', { name: 'Copy the key' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(key)).toHaveCount(0);
    const prefix = key.split('_')[1];
    const row = page.getByRole('row').filter({ hasText: `ap_${prefix}_` });
    await expect(row).toContainText('active');
    page.once('dialog', (confirm) => void confirm.accept());
    await row.getByRole('button', { name: /Revoke/ }).click();
    await expect(row).toContainText('revoked');
  });

  test('the audit log lists the sign-ins, filtered by event type', async ({ page }) => {
    await signIn(page);
    await page.goto('/admin/audit');
    await expect(page.getByRole('table')).toBeVisible();
    const firstType = (await page.getByRole('row').nth(1).getByRole('cell').nth(1).textContent())!;
    await page.getByLabel('Event type').fill(firstType);
    await expect(page.getByRole('row').nth(1)).toContainText(firstType);
    await expect(
      page
        .getByRole('row')
        .filter({ hasNotText: firstType })
        .filter({ has: page.getByRole('cell') }),
    ).toHaveCount(0);
  });

  test('the admin pages are accessible', async ({ page }) => {
    await signIn(page);
    for (const tab of ['users', 'api-keys', 'roles', 'audit']) {
      await page.goto(`/admin/${tab}`);
      await expect(page.getByRole('table').first()).toBeVisible();
      await expectAccessible(page);
    }
  });
});
