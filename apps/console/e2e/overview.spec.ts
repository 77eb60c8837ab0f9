import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

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
    // What the services themselves say, asked directly (other spec files may have added to them).
    const total = async (url: string) =>
      ((await (await fetch(url, { headers: { authorization: `Bearer ${await adminAccessToken()}` } })).json()) as { total: number }).total;
    await expect(page.getByTestId('figure-agents-value')).toHaveText(String(await total(`${platformUrls().registry}/api/v1/agents?limit=1`)));
    await expect(page.getByTestId('figure-workflows-value')).toHaveText(
      String(await total(`${platformUrls()['workflow-engine']}/api/v1/workflows/catalog?limit=1`)),
    );
  });

  test("a user with fewer permissions sees the figures they may read and the API's refusal of the others", async ({ page }) => {
    await signIn(page, await createUser(['registry:read']));
    await expect(page.getByTestId('figure-agents-value')).toHaveText(/^\d+$/);
    const spans = page.getByTestId('figure-spansToday');
    await expect(spans).toContainText('Not permitted:');
    await expect(spans).toContainText('traces:read');
    await expect(page.getByTestId('figure-liveMeshAgents')).toContainText('Not permitted:');
  });

  test('a service whose readiness cannot be reached is shown failing, the others still ready', async ({ page }) => {
    // The browser loses its connection for one service's readiness only.
    await page.route('**/api/v1/platform/mesh/health/ready', (route) => route.abort('connectionrefused'));
    await signIn(page);
    await expect(page.getByTestId('ready-mesh')).toHaveText('failing');
    await expect(page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'mesh', exact: true }) })).toContainText('health/ready');
    await expect(page.getByTestId('ready-registry')).toHaveText('ready');
  });

  test('the overview is accessible', async ({ page }) => {
    await signIn(page);
    await expect(page.getByTestId('ready-auth')).toBeVisible();
    await expectAccessible(page);
  });
});
