import type { Page } from '@playwright/test';
import { createUser, expect, expectAccessible, signIn, test } from './fixtures';

/** axe on the page as a reader sees it, the pointer resting off the sidebar link it clicked. */
async function readable(page: Page): Promise<void> {
  await page.mouse.move(700, 12);
  await expectAccessible(page);
}

test.describe('models', () => {
  test('the playground streams an answer token by token; usage is charted per model', async ({ page }) => {
    await signIn(page);
    await page.getByRole('link', { name: 'Models' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'llama3.2:latest' })).toContainText('ollama');
    await readable(page);

    await page.getByRole('tab', { name: 'Chat playground' }).click();
    await page.getByRole('combobox', { name: 'Model' }).click();
    await page.getByRole('option', { name: 'llama3.2:latest' }).click();
    // The fake Ollama echoes the prompt word by word: a long prompt is a long stream of lines, which
    // a slow network (Chromium's throttling, about 3 s for this answer) brings in many pieces.
    const words = Array.from({ length: 2000 }, (_, index) => `w${index}`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 80 * 1024, uploadThroughput: -1 });
    // Every text the answer shows on its way, as the page renders it.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { answerLengths: number[] }).answerLengths = seen;
      new MutationObserver(() => {
        const answer = document.querySelector('[data-testid="chat-assistant"]');
        if (answer) seen.push(answer.textContent?.length ?? 0);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByLabel('Message').fill(words.join(' '));
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByTestId('chat-assistant');
    await expect(answer).toContainText(`echo: ${words.slice(0, 5).join(' ')}`);
    await expect(answer).toContainText(words.at(-1)!);
    await expect(answer).not.toContainText('streaming…');
    await expect(answer).toContainText('tokens · stop');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const lengths = await page.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths);
    const final = lengths.at(-1)!;
    // Growing parts of the answer were on the page before the whole of it.
    expect(new Set(lengths.filter((length) => length > 40 && length < final - 100)).size).toBeGreaterThan(3);
    await readable(page);

    // local-models writes usage records in batches, within about a second of the call.
    await expect(async () => {
      await page.reload();
      await page.getByRole('tab', { name: 'Usage and cost' }).click();
      await expect(page.getByRole('row').filter({ hasText: 'llama3.2:latest' })).toBeVisible({ timeout: 3_000 });
    }).toPass();
    await expect(page.getByText('Cost per day')).toBeVisible();
    expect(await page.getByLabel('Tokens per day and model').locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    await expect(page.getByLabel('Tokens per day and model')).toContainText('llama3.2:latest');
    await readable(page);
  });

  test("a user without models:read sees the API's refusal", async ({ page }) => {
    const user = await createUser(['registry:read']);
    await signIn(page, user);
    await page.goto('/models');
    const alert = page.getByRole('alert').first();
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
    await expectAccessible(page);
  });

  test('a user who may read models but not invoke them sees the refusal in the playground', async ({ page }) => {
    const user = await createUser(['models:read']);
    await signIn(page, user);
    await page.goto('/models');
    await page.getByRole('tab', { name: 'Chat playground' }).click();
    await page.getByLabel('Message').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The model did not answer' });
    await expect(alert).toContainText('HTTP 403');
  });
});
