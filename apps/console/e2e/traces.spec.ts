import { randomBytes } from 'node:crypto';
import { syntheticTrace } from '../src/pages/traces/waterfall/synthetic-trace';
import { adminAccessToken, createUser, expect, expectAccessible, platformUrls, signIn, test } from './fixtures';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function call(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}`, ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A synthetic trace sent to the tracing service as OTLP/HTTP JSON, the way an SDK's exporter sends it. */
async function ingest(spans: number, project: string) {
  const traceId = hex(16);
  const trace = syntheticTrace({ spans, traceId, project });
  const sent = await call(`${platformUrls().tracing}/v1/traces`, { method: 'POST', body: trace.body });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  expect(sent.body.partialSuccess?.rejectedSpans ?? '0').toBe('0');
  return { traceId, trace };
}

test.describe('traces', () => {
  test('an agent published through the gateway is one trace, whose waterfall shows spans of at least three services', async ({ page }) => {
    // The caller starts the trace; the gateway's saga carries it to the registry, master, the mesh and tracing.
    const traceId = hex(16);
    const name = `traced-${hex(4)}`;
    const published = await call(`${platformUrls().gateway}/api/v1/agents`, {
      method: 'POST',
      headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
      body: {
        manifest: {
          apiVersion: 'std/v0.4.7',
          kind: 'Agent',
          metadata: { name, namespace: 'console-traces', version: '1.0.0', description: 'An agent whose publication is traced' },
          security: {
            tier: 'tier_2_write_limited',
            capabilities: { required: ['network-outbound'] },
            sandboxing: {
              required: true,
              type: 'container',
              resource_limits: { max_memory_mb: 256, max_cpu_cores: 0.5, max_execution_seconds: 60, max_disk_mb: 256 },
            },
          },
        },
      },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    try {
      // Each service exports its spans on its own schedule: wait until three services' are stored.
      await expect
        .poll(async () => ((await call(`${platformUrls().tracing}/api/traces/${traceId}`)).body.projects ?? []).length, { timeout: 60_000 })
        .toBeGreaterThanOrEqual(3);

      await signIn(page);
      await page.goto(`/traces/trace/${traceId}`);
      await expect(page.getByTestId('waterfall-row').first()).toBeVisible();
      await expect.poll(() => page.getByTestId('trace-service').count()).toBeGreaterThanOrEqual(3);
      const services = await page.getByTestId('waterfall-row').evaluateAll((rows) => [...new Set(rows.map((row) => (row as HTMLElement).dataset.service))]);
      expect(services.length, services.join(', ')).toBeGreaterThanOrEqual(3);
      expect(services).toEqual(expect.arrayContaining(['gateway']));
      // The root is the gateway's server span of the call, drawn first at depth 0.
      await expect(page.getByTestId('waterfall-row').first()).toHaveAttribute('data-service', 'gateway');
      await expectAccessible(page);
    } finally {
      await call(`${platformUrls().gateway}/api/v1/agents/${published.body.id}`, { method: 'DELETE' });
    }
  });

  test('span search finds a span by name and by attribute, and opens it in its trace with its attributes', async ({ page }) => {
    const project = `search-${hex(4)}`;
    const { traceId } = await ingest(40, project);
    await signIn(page);
    await page.goto('/traces');
    await expect(page.getByRole('heading', { name: 'Traces', level: 1 })).toBeVisible();
    await expectAccessible(page);
    await page.getByRole('link', { name: project, exact: true }).click();
    await expect(page.getByRole('heading', { name: project, level: 1 })).toBeVisible();
    await expect(page.getByTestId('span-total')).toHaveText('40 spans found');
    await expectAccessible(page);

    await page.getByLabel('Name').fill('query 2.3');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByTestId('span-total')).toHaveText('1 span found');
    await expect(page.getByTestId('span-result')).toHaveText(['query 2.3']);

    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect(page.getByTestId('span-total')).toHaveText('40 spans found');
    await page.getByLabel('Attributes').fill('server.index=4\nhttp.route=/step/4');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByTestId('span-result')).toHaveText(['local-models handle 4']);
    // A filter the service would refuse is named beside the form, not sent.
    await page.getByLabel('Attributes').fill('no value here');
    await expect(page.getByRole('alert')).toContainText('"no value here" is not key=value');
    await expect(page.getByRole('button', { name: 'Search', exact: true })).toBeDisabled();

    await page.getByLabel('Attributes').fill('server.index=4');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByTestId('span-result').filter({ hasText: 'local-models handle 4' }).click();
    await expect(page).toHaveURL(new RegExp(`/traces/trace/${traceId}\\?span=`));
    const details = page.getByTestId('span-details');
    await expect(details.getByRole('heading', { name: 'local-models handle 4' })).toBeVisible();
    const attributes = details.getByRole('table', { name: 'Span attributes' });
    await expect(attributes.getByRole('row').filter({ hasText: 'server.index' })).toContainText('4');
    await expect(attributes.getByRole('row').filter({ hasText: 'http.route' })).toContainText('/step/4');
    await details.getByRole('tab', { name: /Resource/ }).click();
    await expect(details.getByRole('table', { name: 'Resource attributes' })).toContainText('openinference.project.name');
    await expectAccessible(page);
  });

  test('a trace of 10,000 spans opens, keeps only the rows in view in the page, and scrolls to its last row', async ({ page }) => {
    test.setTimeout(180_000);
    const { traceId, trace } = await ingest(10_000, `big-${hex(4)}`);
    await signIn(page);
    await page.goto(`/traces/trace/${traceId}`);
    await expect(page.getByTestId('waterfall')).toHaveAttribute('data-row-count', '10000');
    await expect(page.getByTestId('trace-summary')).toContainText('10,000');
    await expect(page.getByTestId('waterfall-row').first()).toHaveAttribute('data-span-id', trace.order[0]);
    expect(await page.getByTestId('waterfall-row').count()).toBeLessThan(120);
    await expect(page.getByTestId('trace-service')).toHaveText(['gateway', 'workflow-engine', 'local-models', 'mcp-registry']);
    // Failed spans are marked.
    await expect(page.locator('[data-testid="waterfall-row"][data-error]').first()).toContainText('error');
    await expectAccessible(page);

    // Scroll a screen at a time, a frame each, to the end.
    await page.getByTestId('waterfall-scroll').evaluate(async (scroller) => {
      for (let top = 0; top < scroller.scrollHeight; top += scroller.clientHeight) {
        scroller.scrollTop = top;
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      scroller.scrollTop = scroller.scrollHeight;
    });
    const last = page.locator(`[data-testid="waterfall-row"][data-span-id="${trace.order.at(-1)}"]`);
    await expect(last).toBeInViewport();
    expect(await page.getByTestId('waterfall-row').count()).toBeLessThan(120);

    await last.click();
    const details = page.getByTestId('span-details');
    await expect(details.getByRole('table', { name: 'Span attributes' }).getByRole('row').filter({ hasText: 'db.system' })).toContainText('postgresql');
    await expect(page).toHaveURL(new RegExp(`span=${trace.order.at(-1)}`));
  });

  test('a trace id nobody stored is the API’s 404, and a malformed one is said so', async ({ page }) => {
    await signIn(page);
    await page.goto(`/traces/trace/${hex(16)}`);
    await expect(page.getByRole('alert')).toContainText('HTTP 404');
    await page.goto('/traces/trace/not-a-trace');
    await expect(page.getByRole('alert')).toContainText('is not a trace id');
  });
});

test.describe('evaluations', () => {
  test('a new dataset, an evaluation started on it, and its results as a table', async ({ page }) => {
    const name = `qa-${hex(4)}`;
    await signIn(page);
    await page.goto('/evaluations/datasets');
    await expect(page.getByRole('heading', { name: 'Datasets', level: 1 })).toBeVisible();
    await expectAccessible(page);
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Examples').fill(
      [
        { input: '2 + 2', expected_output: '4', output: '4' },
        { input: 'capital of France', expected_output: 'Paris', output: 'Paris' },
        { input: '3 * 3', expected_output: '9', output: '6' },
      ]
        .map((example) => JSON.stringify(example))
        .join('\n'),
    );
    await expect(page.getByTestId('example-count')).toHaveText('3 examples');
    await page.getByRole('button', { name: 'Create dataset' }).click();

    await expect(page.getByRole('heading', { name: `${name} v1`, level: 1 })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Examples' }).getByRole('row')).toHaveCount(4);
    await expect(page.getByRole('table', { name: 'Examples' })).toContainText('capital of France');
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Evaluate' }).click();
    await expect(page.getByRole('heading', { name: 'New evaluation', level: 1 })).toBeVisible();
    await page.getByLabel('Name').fill(`eval ${name}`);
    await expect(page.getByRole('combobox', { name: 'Dataset' })).toHaveValue(`${name} v1 (3 examples)`);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Start evaluation' }).click();

    await expect(page).toHaveURL(/\/evaluations\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { name: `eval ${name}`, level: 1 })).toBeVisible();
    const results = page.getByRole('table', { name: 'Results per example' });
    await expect(results.getByTestId('status')).toHaveText(['succeeded', 'succeeded', 'succeeded'], { timeout: 60_000 });
    await expect(results.getByTestId('result-score')).toHaveText(['1', '1', '0']);
    await expect(page.getByTestId('score-exact_match')).toContainText('0.667');
    await expect(page.getByRole('figure', { name: 'Mean score per metric' })).toBeVisible();
    await expectAccessible(page);

    await page.goto('/evaluations');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `eval ${name}` }) });
    await expect(row).toContainText('3 / 3');
    await expect(row.getByTestId('status')).toHaveText('completed');
    await expectAccessible(page);
  });
});

test.describe('without tracing permissions', () => {
  test("a user sees the API's refusal on traces and evaluations, and no link to them", async ({ page }) => {
    const user = await createUser(['agents:read']);
    await signIn(page, user);
    await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Traces' })).toHaveCount(0);
    for (const path of ['/traces', '/evaluations', `/traces/trace/${hex(16)}`]) {
      await page.goto(path);
      const alert = page.getByRole('alert');
      await expect(alert, path).toContainText('Not permitted');
      await expect(alert, path).toContainText('HTTP 403');
      await expectAccessible(page);
    }
  });
});
