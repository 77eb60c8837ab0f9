import type { Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

/** axe on the page as a reader sees it, the pointer resting off the sidebar link it clicked. */
async function readable(page: Page): Promise<void> {
  await page.mouse.move(700, 12);
  await expectAccessible(page);
}

/** A call to the mesh's API as the admin; throws on an answer other than 2xx. */
async function meshCall<T>(method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${platformUrls().mesh}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** Registers an agent with the mesh through its API, as a running agent does. */
async function registerAgent(name: string, endpoint?: string): Promise<string> {
  const body = { name, namespace: 'console-e2e', capabilities: ['summarize'], endpoint, check: { type: 'ttl', ttl_ms: 600_000 } };
  return (await meshCall<{ id: string }>('POST', '/agents', body)).id;
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
    await readable(page);
  });

  test('a message no agent could take lands in the dead letters, and is sent again from there', async ({ page }) => {
    // One attempt per message, so that the refused delivery is dead at once (this run's platform only).
    await meshCall('PUT', '/config', { max_delivery_attempts: 1 });
    try {
      // An endpoint where nothing listens: the delivery fails.
      const agentId = await registerAgent(`e2e-${randomBytes(4).toString('hex')}`, 'http://127.0.0.1:9/inbox');
      const sent = await meshCall<{ id: string; message_id: string }>('POST', '/messages', { to: agentId, payload: { order: 7 } });
      await signIn(page);
      await page.goto('/mesh');
      await page.getByRole('tab', { name: 'Dead letters' }).click();
      const row = page.getByRole('row').filter({ hasText: sent.message_id });
      await expect(row).toContainText(agentId);
      await readable(page);
      await row.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Retry selected (1)' }).click();
      await expect(page.getByRole('status')).toContainText('1 message is queued again.');
    } finally {
      await meshCall('PUT', '/config', { max_delivery_attempts: 5 });
    }
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
    await expectAccessible(page);
  });
});
