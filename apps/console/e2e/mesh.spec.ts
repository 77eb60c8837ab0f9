import type { Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

/** axe on the page as a reader sees it, the pointer resting off the sidebar link it clicked. */
async function readable(page: Page): Promise<void> {
  await page.mouse.move(700, 12);
  await expectAccessible(page);
}

/** Registers an agent with the mesh through its API, as a running agent does. */
async function registerAgent(name: string): Promise<string> {
  const response = await fetch(`${platformUrls().mesh}/api/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}` },
    body: JSON.stringify({ name, namespace: 'console-e2e', capabilities: ['summarize'], check: { type: 'ttl', ttl_ms: 600_000 } }),
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`registering answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

test.describe('mesh', () => {
  test('the mesh page lists a live agent with its health, and shows the queues and dead letters', async ({ page }) => {
    const name = `e2e-${randomBytes(4).toString('hex')}`;
    const id = await registerAgent(name);
    await signIn(page);
    await page.getByRole('link', { name: 'Mesh' }).click();
    const row = page.getByRole('row').filter({ hasText: `console-e2e/${name}` });
    await expect(row).toContainText(id);
    await expect(row).toContainText('passing');
    await expect(row).toContainText('summarize');
    await readable(page);

    await row.getByRole('button', { name: `Health history of console-e2e/${name}` }).click();
    await expect(page.getByRole('dialog')).toContainText(`Health checks of console-e2e/${name}`);
    await page.keyboard.press('Escape');

    await page.getByRole('tab', { name: 'Queues' }).click();
    await expect(page.getByText('Messages by state')).toBeVisible();
    await expect(page.getByText(/Delivery jobs \(\d+ queues, \d+ in flight\)/)).toBeVisible();
    await readable(page);

    await page.getByRole('tab', { name: 'Dead letters' }).click();
    await expect(page.getByText(/\d+ dead letters?/)).toBeVisible();
    await page.getByRole('button', { name: 'Retry all' }).click();
    await expect(page.getByRole('status')).toContainText(/queued again/);
    await readable(page);
  });

  test("retrying dead letters without mesh:admin shows the API's refusal", async ({ page }) => {
    const user = await createUser(['mesh:read']);
    await signIn(page, user);
    await page.goto('/mesh');
    await page.getByRole('tab', { name: 'Dead letters' }).click();
    await page.getByRole('button', { name: 'Retry all' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not retried' });
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
  });

  test("a user without mesh:read sees the API's refusal", async ({ page }) => {
    const user = await createUser(['registry:read']);
    await signIn(page, user);
    await page.goto('/mesh');
    await expect(page.getByRole('alert').first()).toContainText('HTTP 403');
    await expect(page.getByRole('heading', { name: 'Mesh', level: 1 })).toBeVisible();
  });
});
