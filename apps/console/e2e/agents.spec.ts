import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { createUser, expect, expectAccessible, signIn, test } from './fixtures';

/** axe on the page as a reader sees it, the pointer resting off the sidebar link it clicked. */
async function readable(page: Page): Promise<void> {
  await page.mouse.move(700, 12);
  await expectAccessible(page);
}

const unique = () => `e2e-${randomBytes(4).toString('hex')}`;

/** A manifest whose line 4 breaks metadata.name's pattern (capitals and an underscore). */
const manifest = (name: string, namespace: string, badName = false) =>
  [
    'apiVersion: std/v0.4.7',
    'kind: Agent',
    'metadata:',
    `  name: ${badName ? 'Bad_Name' : name}`,
    `  namespace: ${namespace}`,
    '  version: 1.0.0',
    '  description: Finds documents for the console test',
    'security:',
    '  tier: tier_1_read',
    '  capabilities:',
    '    required: [network-outbound]',
    '',
  ].join('\n');

/** Replaces the editor's text the way a paste does. */
async function replaceEditorText(page: Page, text: string): Promise<void> {
  const content = page.getByRole('textbox', { name: 'Manifest', exact: true });
  await content.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}

test.describe('agents', () => {
  test('publish from a file: the validation error shows at its line; fixed, the agent is published and found', async ({ page }) => {
    const name = unique();
    const namespace = unique();
    await signIn(page);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Publish an agent' }).click();
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'agent.yaml', mimeType: 'application/yaml', buffer: Buffer.from(manifest(name, namespace, true)) });
    await expect(page.getByText('agent.yaml')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Manifest', exact: true })).toContainText('Bad_Name');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();

    // The gateway refuses it; the error is placed at line 4 of the editor, underlined there.
    const problems = page.getByTestId('manifest-problems');
    await expect(problems).toContainText('Line 4');
    await expect(problems).toContainText('metadata.name');
    await expect(page.locator('.cm-lintRange-error')).toHaveText('name: Bad_Name');
    const markedLine = page.locator('.cm-lint-marker-error').first();
    const fourthLine = page.locator('.cm-line').nth(3);
    expect(Math.abs((await markedLine.boundingBox())!.y - (await fourthLine.boundingBox())!.y)).toBeLessThan(8);
    await expect(page.getByRole('alert').filter({ hasText: 'Not published' })).toContainText('HTTP 400');
    await readable(page);

    await replaceEditorText(page, manifest(name, namespace));
    await expect(problems).toHaveCount(0);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const published = page.getByRole('status').filter({ hasText: 'Published' });
    await expect(published).toContainText(`${namespace}/${name}`);
    await expect(published).toContainText('version 1.0.0 is active');
    await expect(published).toContainText('registry: done');

    // Found by the registry's search with its filters, and not found with a filter it fails.
    await page.goto('/agents');
    await page.getByLabel('Search', { exact: true }).fill(name);
    await page.getByRole('combobox', { name: 'Security tier' }).click();
    await page.getByRole('option', { name: 'tier_1_read' }).click();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByRole('row').filter({ hasText: `${namespace}/${name}` })).toContainText('tier_1_read');
    await page.getByLabel('Capability').fill('gpu');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByText('No agent matches.')).toBeVisible();
    await page.getByLabel('Capability').fill('network-outbound');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: `${namespace}/${name}` }).click();

    // Its page: versions, the manifest as the registry serves it, certification, mesh status.
    await expect(page.getByRole('heading', { name: `${namespace}/${name}`, level: 1 })).toBeVisible();
    await expect(page.getByRole('row').filter({ hasText: '1.0.0' })).toContainText('latest');
    await readable(page);
    await page.getByRole('tab', { name: 'Manifest' }).click();
    await expect(page.getByText('as published, byte for byte')).toBeVisible();
    await expect(page.getByRole('textbox', { name: /^Manifest of/ })).toContainText(`"${name}"`);
    await page
      .locator('label')
      .filter({ hasText: /^YAML$/ })
      .click();
    await expect(page.getByText('converted from JSON at publish time')).toBeVisible();
    await expect(page.getByRole('textbox', { name: /^Manifest of/ })).toContainText(`name: ${name}`);
    await page.getByRole('tab', { name: 'Certification' }).click();
    await page.getByRole('button', { name: /^Certify/ }).click();
    await expect(page.getByText('Not revoked or deprecated')).toBeVisible();
    await page.getByRole('tab', { name: 'Mesh' }).click();
    await expect(page.getByRole('row').filter({ hasText: /passing|warning|critical/ })).toHaveCount(1);
    await readable(page);

    // Deprecate: a new version marked deprecated.
    await page.getByRole('button', { name: 'Deprecate' }).click();
    await page.getByRole('dialog').getByLabel('Message').fill('Use search-v2');
    await page.getByRole('dialog').getByRole('button', { name: 'Deprecate' }).click();
    await expect(page.getByRole('status').filter({ hasText: '1.0.1 is deprecated' })).toBeVisible();
    await expect(page.getByText('deprecated', { exact: true }).first()).toBeVisible();
    // Revoke: another new version, marked revoked with its time.
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByRole('status').filter({ hasText: '1.0.2 is revoked' })).toBeVisible();
    await page.getByRole('tab', { name: 'Manifest' }).click();
    await expect(page.getByRole('textbox', { name: /^Manifest of/ })).toContainText('revoked_at');
  });

  test("a user without registry:read sees the API's refusal", async ({ page }) => {
    const user = await createUser(['mesh:read']);
    await signIn(page, user);
    await expect(page.getByRole('link', { name: 'Agents' })).toHaveCount(0);
    await page.goto('/agents');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
    await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
    await expectAccessible(page);
  });
});
