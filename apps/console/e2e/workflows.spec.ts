import type { Locator, Page } from '@playwright/test';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

/** A call to the workflow engine's own API as the admin (to set up what a test starts from). */
async function engine(method: string, path: string, body?: unknown) {
  const response = await fetch(`${platformUrls()['workflow-engine']}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${await adminAccessToken()}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Drags a component from the library onto the canvas at a point of it; the new node is selected. */
async function dropComponent(page: Page, type: string, at: { x: number; y: number }) {
  await page.getByTestId(`palette-${type}`).dragTo(page.getByTestId('workflow-canvas'), { targetPosition: at });
}

/** Connects two handles by dragging from one to the other, as a user does. */
async function connect(page: Page, from: Locator, to: Locator) {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
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

const inspector = (page: Page) => page.getByRole('complementary', { name: /^Node / });

test.describe('workflows', () => {
  // The editor shows the library, the canvas and the node's form side by side: a desktop screen.
  test.use({ viewport: { width: 1600, height: 1000 } });

  test('builds a three-node workflow on the canvas, saves it, runs it and watches every node complete', async ({ page }) => {
    await signIn(page);
    await page.getByRole('link', { name: 'Workflows' }).click();
    await expect(page.getByRole('heading', { name: 'Workflows', level: 1 })).toBeVisible();
    await expect(page.getByRole('table')).toBeVisible();
    await accessible(page);
    await page.getByRole('link', { name: 'New workflow' }).click();
    await expect(page.getByTestId('palette-Merge')).toBeVisible();

    await dropComponent(page, 'Merge', { x: 120, y: 120 });
    await expect(page.getByTestId('node-merge1')).toBeVisible();
    await inspector(page).getByLabel('Inputs').fill('[1, 2]');

    await dropComponent(page, 'Condition', { x: 120, y: 330 });
    await expect(page.getByTestId('node-condition1')).toBeVisible();
    await inspector(page).getByLabel('Condition').fill('$count($) = 2');
    await inspector(page).getByLabel('Input', { exact: true }).fill('{{merge1.merged}}');

    await dropComponent(page, 'Merge', { x: 520, y: 330 });
    await expect(page.getByTestId('node-merge2')).toBeVisible();
    await inspector(page).getByLabel('Inputs').fill('["{{condition1.value}}", "done"]');

    await connect(page, page.getByTestId('handle-out-merge1'), page.getByTestId('handle-in-condition1'));
    await connect(page, page.getByTestId('handle-true-condition1'), page.getByTestId('handle-in-merge2'));
    await expect(page.getByText('3 nodes · 2 edges')).toBeVisible();
    await accessible(page);

    await page.getByLabel('Name').fill('Three nodes from the canvas');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page).toHaveURL(/\/workflows\/[0-9a-f-]{36}$/);
    const workflowId = page.url().split('/').pop()!;
    // What was stored is what was drawn: three nodes, the Condition's true branch.
    const stored = await engine('GET', `/workflows/${workflowId}`);
    expect(stored.body.flow.nodes.map((node: { id: string; type: string }) => `${node.id}:${node.type}`)).toEqual([
      'merge1:Merge',
      'condition1:Condition',
      'merge2:Merge',
    ]);
    expect(stored.body.flow.edges).toEqual([
      { source: 'merge1', target: 'condition1' },
      { source: 'condition1', target: 'merge2', sourceHandle: 'true' },
    ]);

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page).toHaveURL(/\/executions\/[0-9a-f-]{36}$/);
    for (const id of ['merge1', 'condition1', 'merge2']) await expect(page.getByTestId(`node-state-${id}`)).toHaveText('completed');
    await expect(page.getByTestId('run-status')).toHaveText('completed');
    await page.getByTestId('node-merge2').click();
    const panel = page.getByTestId('node-run-panel');
    await expect(panel.getByTestId('json-view').last()).toContainText('"done"');
    await accessible(page);
  });

  test('a node with an invalid parameter shows the engine’s validation error on that node', async ({ page }) => {
    await signIn(page);
    await page.goto('/workflows/new');
    await dropComponent(page, 'Merge', { x: 120, y: 120 });
    await dropComponent(page, 'VectorSearch', { x: 420, y: 120 });
    await inspector(page).getByLabel('Query').fill('cats');
    await inspector(page).getByLabel('Collection').fill('not a name!');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The Merge lacks its required inputs, the search's collection breaks the pattern: each on its own node.
    await expect(page.getByTestId('node-merge1')).toHaveAttribute('data-invalid', 'true');
    await expect(page.getByTestId('node-issue-merge1')).toContainText('inputs');
    await expect(page.getByTestId('node-vectorsearch1')).toHaveAttribute('data-invalid', 'true');
    await expect(page.getByTestId('node-issue-vectorsearch1')).toContainText('collection');
    // Selected, the node's form shows the engine's message under the field it names.
    await page.getByTestId('node-vectorsearch1').click();
    await expect(inspector(page).getByText(/pattern/)).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'HTTP 400' })).toBeVisible();
    await expect(page).toHaveURL(/\/workflows\/new$/);
    await accessible(page);
  });

  test('execution history lists a run and replays it on the canvas', async ({ page }) => {
    const created = await engine('POST', '/workflows', {
      name: 'History and replay',
      category: 'e2e',
      flow: {
        nodes: [
          { id: 'first', type: 'Merge', position: { x: 0, y: 0 }, data: { inputs: { a: 1 } } },
          { id: 'second', type: 'Merge', position: { x: 280, y: 0 }, data: { inputs: ['{{first.merged}}', { b: 2 }] } },
        ],
        edges: [{ source: 'first', target: 'second' }],
      },
    });
    expect(created.status).toBe(201);
    const run = await engine('POST', `/workflows/${created.body.id}/execute`, { options: { async: false } });
    expect(run.body.status).toBe('completed');

    await signIn(page);
    await page.goto('/workflows');
    await page.getByRole('link', { name: 'History and replay' }).first().click();
    const history = page.getByRole('region', { name: 'Execution history' });
    await expect(history.getByRole('row')).toHaveCount(2);
    await expect(history).toContainText('completed');
    await history.getByRole('link', { name: 'Replay' }).click();
    await expect(page).toHaveURL(new RegExp(`/executions/${run.body.executionId}$`));
    await expect(page.getByTestId('node-state-first')).toHaveText('completed');
    await expect(page.getByTestId('node-state-second')).toHaveText('completed');
    await page.getByTestId('node-second').click();
    await expect(page.getByTestId('node-run-panel')).toContainText('"b": 2');
    await accessible(page);
  });

  test('a user without the workflows permissions sees the API’s refusal', async ({ page }) => {
    const user = await createUser(['agents:read']);
    await signIn(page, user);
    await expect(page.getByRole('link', { name: 'Workflows' })).toHaveCount(0);
    await page.goto('/workflows');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Not permitted:');
    await expect(alert).toContainText('HTTP 403');
    await expect(page.getByRole('heading', { name: 'Workflows', level: 1 })).toBeVisible();
    await expectAccessible(page);
  });

  test('a viewer of the team opens its shared workflow, and the engine refuses to run it for them', async ({ page }) => {
    const viewer = await createUser(['workflows:read', 'workflows:write']);
    const admin = { authorization: `Bearer ${await adminAccessToken()}`, 'content-type': 'application/json' };
    const team = await fetch(`${platformUrls().auth}/api/v1/auth/teams`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: `wf-e2e-${Date.now().toString(36)}` }),
    });
    expect(team.status).toBe(201);
    const { id: teamId } = (await team.json()) as { id: string };
    const member = await fetch(`${platformUrls().auth}/api/v1/auth/teams/${teamId}/members/${viewer.id}`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ role: 'viewer' }),
    });
    expect(member.ok).toBe(true);
    const shared = await engine('POST', '/workflows', {
      name: 'Shared with the team',
      category: 'e2e',
      team: teamId,
      flow: { nodes: [{ id: 'only', type: 'Merge', position: { x: 0, y: 0 }, data: { inputs: [1] } }] },
    });
    expect(shared.status).toBe(201);

    await signIn(page, viewer);
    await page.goto('/workflows');
    await page.getByRole('link', { name: 'Shared with the team' }).click();
    await expect(page.getByTestId('node-only')).toBeVisible();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not permitted:' });
    await expect(alert).toContainText('HTTP 403');
    await expect(page).toHaveURL(new RegExp(`/workflows/${shared.body.id}$`));
  });
});
