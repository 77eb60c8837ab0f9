import type { Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

/** axe on the page as a reader sees it, the pointer resting off the sidebar link it clicked. */
async function readable(page: Page): Promise<void> {
  await page.mouse.move(700, 12);
  await expectAccessible(page);
}

/** The MCP reference server, registered with mcp-registry over stdio, as the platform test does. */
async function registerEverything(name: string): Promise<string> {
  const response = await fetch(`${platformUrls()['mcp-registry']}/connections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}` },
    body: JSON.stringify({ name, type: 'server', protocol: 'stdio', endpoint: { command: 'mcp-server-everything', args: [] } }),
  });
  if (response.status !== 201) throw new Error(`registering answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

test.describe('mcp servers', () => {
  test("call the reference server's echo tool from the form generated from its schema", async ({ page }) => {
    const name = `everything-${randomBytes(4).toString('hex')}`;
    const id = await registerEverything(name);
    await signIn(page);
    await page.getByRole('link', { name: 'MCP servers' }).click();
    await expect(page.getByRole('row').filter({ hasText: name })).toContainText('stdio');
    await readable(page);
    await page.getByRole('link', { name }).click();
    await expect(page).toHaveURL(new RegExp(`/mcp/${id}$`));

    // A check run from the page lands in the health history and reads the server's tools.
    await page.getByRole('tab', { name: 'Health' }).click();
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'healthy' }).first()).toBeVisible();
    await readable(page);

    await page.getByRole('tab', { name: /^Tools/ }).click();
    await page.getByRole('button', { name: /^echo/ }).click();
    const form = page.getByRole('form', { name: 'Call echo' });
    await form.getByRole('button', { name: 'Call echo' }).click();
    await expect(form).toContainText('Required');
    await form.getByLabel(/Message/).fill('hello from the console');
    await form.getByRole('button', { name: 'Call echo' }).click();
    await expect(form.getByTestId('tool-result')).toContainText('Echo: hello from the console');
    await readable(page);
  });

  test("a user without mcp:read sees the API's refusal", async ({ page }) => {
    const user = await createUser(['registry:read']);
    await signIn(page, user);
    await expect(page.getByRole('link', { name: 'MCP servers' })).toHaveCount(0);
    await page.goto('/mcp');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
    await expectAccessible(page);
  });
});
