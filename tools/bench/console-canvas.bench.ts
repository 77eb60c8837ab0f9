// The console's canvas with a large workflow: `npm run bench:console-canvas`.
// The whole platform boots as `npm run up` boots it (its own database and a private Redis), the
// console, built from the checkout into a folder of the run's own, is served by the gateway, and headless Chromium signs in
// once. Then, rounds alternating so both sides see the same machine load, the page of a stored
// workflow is loaded from scratch (a navigation: the JavaScript, the session refresh, the API reads,
// xyflow's drawing and measuring of every node): a 200-node workflow, and beside it the baseline,
// a 3-node workflow opened the same way. The figure is the Performance API's time from navigation
// start to the `workflow-canvas-rendered` mark, which the canvas sets once every node has been
// drawn and measured. Median of BENCH_ROUNDS (5) per side; target: the 200-node open under 1 s.
// Printed beside it: the load average, and the CPU Chromium's processes spent per open.
import { bootPlatform, systemChromium } from '@platform/testing';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { fmt, median } from './lib/load';

const ROOT = path.resolve(__dirname, '../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const NODES = Number(process.env.BENCH_NODES ?? 200);
const TARGET_MS = 1000;
const MARK = 'workflow-canvas-rendered';

/** A chain of logic nodes in a grid of columns, each reading its parent's output, as an editor would lay it out. */
function workflowOf(nodes: number) {
  const ids = Array.from({ length: nodes }, (_, i) => `n${i}`);
  return {
    nodes: ids.map((id, i) => ({
      id,
      type: 'Merge',
      position: { x: Math.floor(i / 10) * 260, y: (i % 10) * 120 },
      data: { inputs: i === 0 ? [1] : [`{{n${i - 1}.merged}}`] },
    })),
    edges: ids.slice(1).map((id, i) => ({ source: ids[i], target: id })),
  };
}

/** CPU (µs) used so far by every process descending from this one (Chromium's browser, renderers, GPU). */
function descendantsCpuMicros(): number {
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  const browser = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
      if (/chrom/i.test(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) browser.add(Number(entry));
      cpu.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100);
    } catch {
      // The process ended while the list was read.
    }
  }
  const isOurs = (pid: number): boolean => {
    for (let at = parent.get(pid); at !== undefined && at > 1; at = parent.get(at)) if (at === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, micros] of cpu) if (browser.has(pid) && isOurs(pid)) total += micros;
  return total;
}

async function openCanvas(page: Page, baseUrl: string, workflowId: string, nodes: number): Promise<number> {
  await page.goto(`${baseUrl}/workflows/${workflowId}`);
  await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, MARK, { timeout: 60_000 });
  const { at, drawn } = await page.evaluate((mark) => {
    const entry = performance.getEntriesByName(mark)[0] as PerformanceMark;
    return { at: entry.startTime, drawn: document.querySelectorAll('.react-flow__node').length };
  }, MARK);
  if (drawn !== nodes) throw new Error(`the canvas drew ${drawn} nodes of ${nodes}`);
  return at;
}

async function main() {
  // The console as the checkout has it now, built into a folder of this run's own (others rebuild dist/apps/console at will).
  const consoleDir = mkdtempSync(path.join(os.tmpdir(), 'console-canvas-bench-'));
  console.log('building the console ...');
  const built = spawnSync('npx', ['vite', 'build', '--config', 'apps/console/vite.config.mts', '--outDir', consoleDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the console did not build');
  const admin = { username: `bench-admin-${randomBytes(3).toString('hex')}`, password: randomBytes(16).toString('hex') };
  console.log('booting the platform ...');
  // Its own database, dropped first: every run starts from a fresh install, as the browser tests do.
  const platform = await bootPlatform({
    databaseSuffix: 'bench_console_canvas',
    fresh: true,
    env: {
      AUTH_ADMIN_USERNAME: admin.username,
      AUTH_ADMIN_PASSWORD: admin.password,
      GATEWAY_CONSOLE_DIR: consoleDir,
      // The bench signs in through the page, and the admin logs in once more through the API.
      AUTH_LOGIN_RATE_LIMIT: '10000',
    },
  });
  const browser = await chromium.launch(systemChromium());
  try {
    const gateway = platform.urls.gateway.replace(/\/$/, '');
    const login = await fetch(`${platform.urls.auth}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: admin.username, password: admin.password, client_id: 'cli' }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const create = async (nodes: number) => {
      const response = await fetch(`${platform.urls['workflow-engine']}/api/v1/workflows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: `canvas bench ${nodes} nodes`, category: 'bench', flow: workflowOf(nodes) }),
      });
      if (response.status !== 201) throw new Error(`creating the ${nodes}-node workflow answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    };
    const large = await create(NODES);
    const small = await create(3);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${gateway}/sign-in`);
    await page.getByRole('textbox', { name: 'Username' }).fill(admin.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'), { timeout: 60_000 });
    // One warm-up open of each: the HTTP cache then holds the console's files, as for a returning user.
    await openCanvas(page, gateway, large, NODES);
    await openCanvas(page, gateway, small, 3);

    const times: Record<'large' | 'small', number[]> = { large: [], small: [] };
    const cpu: Record<'large' | 'small', number[]> = { large: [], small: [] };
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? (['large', 'small'] as const) : (['small', 'large'] as const)) {
        const before = descendantsCpuMicros();
        times[side].push(await openCanvas(page, gateway, side === 'large' ? large : small, side === 'large' ? NODES : 3));
        cpu[side].push((descendantsCpuMicros() - before) / 1000);
      }
      loads.push(os.loadavg()[0]);
    }
    const load = `load average ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)} on ${os.cpus().length} cores`;
    const line = (label: string, side: 'large' | 'small') =>
      `${label.padEnd(28)} ${fmt(median(times[side])).padStart(6)} ms   (runs: ${times[side].map((t) => fmt(t)).join(', ')} ms; Chromium CPU ${fmt(median(cpu[side]))} ms per open; ${load})`;
    console.log(`\nnavigation start → every node drawn, median of ${ROUNDS}, rounds alternating`);
    console.log(line(`${NODES}-node workflow`, 'large'));
    console.log(line('3-node workflow (baseline)', 'small'));
    const figure = median(times.large);
    console.log(
      `${NODES} nodes cost ${fmt(figure - median(times.small))} ms over the baseline; target < ${TARGET_MS} ms: ${figure < TARGET_MS ? 'met' : 'NOT met'}`,
    );
  } finally {
    await browser.close();
    await platform.stop();
    rmSync(consoleDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
