import { expect, expectAccessible, signIn, test } from './fixtures';

const SERVICES = ['gateway', 'auth', 'registry', 'master', 'mesh', 'workers', 'workflow-engine', 'tracing', 'mcp-registry', 'local-models'];

test.describe('overview', () => {
  test('shows every service ready, with its checks', async ({ page }) => {
    await signIn(page);
    for (const service of SERVICES) await expect(page.getByTestId(`ready-${service}`), service).toHaveText('ready');
    const auth = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'auth', exact: true }) });
    await expect(auth).toContainText('database: up');
    await expect(auth).toContainText('cache: up');
  });

  test("shows the platform's figures from the services", async ({ page }) => {
    await signIn(page);
    for (const figure of ['agents', 'liveMeshAgents', 'workflows', 'runningRuns', 'spansToday', 'failedLastHour'])
      await expect(page.getByTestId(`figure-${figure}-value`), figure).toHaveText(/^\d[\d,]*$/);
    await expect(page.getByTestId('figure-agents-value')).toHaveText('0');
  });

  test('the overview is accessible', async ({ page }) => {
    await signIn(page);
    await expect(page.getByTestId('ready-auth')).toBeVisible();
    await expectAccessible(page);
  });
});
