import type { Page } from '@playwright/test';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

/** Starts a run on the workers service as the admin, as any client of it would. */
async function startRun(steps: unknown[]): Promise<string> {
  const response = await fetch(`${platformUrls().workers}/api/v1/workflows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminAccessToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `console-e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`, steps }),
  });
  const body = (await response.json()) as { workflow_id: string };
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body.workflow_id;
}

/**
 * axe on the page as a reader sees it: the pointer off the link it last clicked (a hovered link is
 * shaded) and finite CSS transitions ended (a colour caught mid-transition is not what anyone reads).
 */
async function accessible(page: Page): Promise<void> {
  await page.mouse.move(1, 1);
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  await expectAccessible(page);
}

test.describe('runs', () => {
  test("a failed run is drawn as its DAG with each step's state, attempts and error, and retried", async ({ page }) => {
    // Loopback is not a place the workers may call (no private addresses by default): the step fails for good.
    const runId = await startRun([
      { id: 'fetch', type: 'http', url: 'http://127.0.0.1:9/data' },
      { id: 'report', type: 'http', url: 'http://127.0.0.1:9/report', depends_on: ['fetch'] },
    ]);
    await signIn(page);
    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId('run-state')).toHaveText('failed');
    await expect(page.getByTestId('step-state-fetch')).toHaveText('failed');
    await expect(page.getByTestId('step-state-report')).toHaveText(/blocked|cancelled|waiting/);
    await expect(page.getByRole('alert').filter({ hasText: 'Why it failed' })).toContainText('fetch');
    await page.getByTestId('step-fetch').click();
    const panel = page.getByTestId('step-panel');
    await expect(panel.getByRole('row')).toHaveCount(2);
    await expect(panel).toContainText('failed');
    await accessible(page);

    await page.getByRole('button', { name: 'Retry run' }).click();
    // The retry starts a new attempt of the failed step, which fails the same way.
    await expect(panel.getByRole('row')).toHaveCount(3);
    await expect(page.getByTestId('run-state')).toHaveText('failed');
    await expect(page.getByRole('button', { name: 'Cancel run' })).toBeDisabled();
  });

  test('a running run is listed, opened from the list and cancelled', async ({ page }) => {
    // An agent the mesh does not route fails each attempt; the next one waits ten minutes: the run stays running.
    const runId = await startRun([{ id: 'ask', type: 'agent', agent: 'nobody-routes-this', retry: { maxAttempts: 5, initialDelay: 600000 } }]);
    await signIn(page);
    await page.getByRole('link', { name: 'Runs' }).click();
    const inProgress = page.getByRole('region', { name: 'Runs in progress' });
    await expect(inProgress.getByRole('row').filter({ hasText: runId })).toBeVisible();
    await accessible(page);
    await inProgress.getByRole('row').filter({ hasText: runId }).getByRole('link').click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
    await expect(page.getByTestId('step-ask')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Retry run' })).toBeDisabled();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await expect(page.getByTestId('run-state')).toHaveText('cancelled');
    await expect(page.getByTestId('step-state-ask')).toHaveText('cancelled');
    await expect(page.getByRole('button', { name: 'Retry run' })).toBeEnabled();
    await accessible(page);
  });

  test('a run opened by its id; a stranger is told it does not exist, a user without permission sees the 403', async ({ page }) => {
    const runId = await startRun([{ id: 'only', type: 'http', url: 'http://127.0.0.1:9/x' }]);
    const stranger = await createUser(['workflows:read', 'workflows:write']);
    await signIn(page, stranger);
    await page.goto('/runs');
    await page.getByLabel('Open a run by id').fill(runId);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
    const notFound = page.getByRole('alert');
    await expect(notFound).toContainText('HTTP 404');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    const outsider = await createUser(['agents:read']);
    await signIn(page, outsider);
    await page.goto('/runs');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
  });
});
