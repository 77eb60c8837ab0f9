// The console's first page, built (dist/apps/console, `npx nx run console:build`) and served by the
// gateway as in production (the gateway started in this process over the local Postgres and a
// Redis server of its own):
//   1. the first page's JavaScript, gzipped: the entry chunk and every chunk it imports statically,
//      from Vite's manifest (sections load later, each its own chunk); target < 300 KB;
//   2. time to first render of the sign-in page in Chromium: navigation start to the form's first
//      frame (the `sign-in-rendered` mark), median of BENCH_LOADS (5) loads, each in a fresh browser
//      context (a first visit: nothing cached). The baseline, in the same run with loads alternating,
//      is a plain HTML page of the same form served by the same gateway: what the browser and the
//      network cost before any of the console's JavaScript. Printed beside each figure: first
//      contentful paint, the load average and the browser's CPU per load (all its processes, /proc).
// Run: npm run bench:console   (BENCH_LOADS, default 5; CHROMIUM_PATH, default /usr/bin/chromium)
import { startService } from '@platform/service-kit';
import { startPrivateRedis, systemChromium, testDatabaseUrl } from '@platform/testing';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { gatewayService } from '../../apps/gateway/src/service';
import { median } from './lib/load';

const ROOT = path.resolve(__dirname, '../..');
const BUILT = path.join(ROOT, 'dist/apps/console');
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const TARGET_KB = 300;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

/** The entry chunk and its static imports, transitively: what the first page must load. */
export function firstPageChunks(manifest: Record<string, ManifestChunk>): string[] {
  const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entry) throw new Error('no entry chunk in the manifest');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) visit(imported);
  };
  visit(entry);
  return [...seen].map((key) => manifest[key].file).filter((file) => file.endsWith('.js'));
}

function firstPageJavaScript(): { files: Array<{ file: string; gzip: number }>; total: number } {
  const manifest = JSON.parse(readFileSync(path.join(BUILT, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const files = firstPageChunks(manifest).map((file) => ({ file, gzip: gzipSync(readFileSync(path.join(BUILT, file)), { level: 9 }).length }));
  return { files, total: files.reduce((sum, f) => sum + f.gzip, 0) };
}

/** The same form as plain HTML, marking its first frame the same way. */
const BASELINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Sign in</title></head><body>
<main><form><h1>Sign in to the agent platform</h1>
<label>Username <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form></main>
<script src="/baseline.js"></script></body></html>`;
// A file, not inline: the gateway's Content-Security-Policy allows scripts of its own origin only.
const BASELINE_SCRIPT = `requestAnimationFrame(() => performance.mark('sign-in-rendered'));`;

/** CPU time (ms) of a process and all its descendants, from /proc. */
function treeCpuMs(rootPid: number): number {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) * tick });
    } catch {
      // The process ended meanwhile.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = stats.get(p)?.ppid ?? 0, hops++) if (p === rootPid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, { cpu }] of stats) if (inTree(pid)) total += cpu;
  return total;
}

/** The browser this process launched: its child whose command is Chromium's. */
function chromiumPid(): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && /chrom/i.test(readFileSync(`/proc/${entry}/comm`, 'utf8'))) return Number(entry);
    } catch {
      // The process ended meanwhile.
    }
  }
  throw new Error("the launched Chromium was not found among this process's children");
}

interface Sample {
  renderMs: number;
  fcpMs: number;
  cpuMs: number;
  load: number;
}

async function loadOnce(browser: Browser, url: string, pid: number): Promise<Sample> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cpu0 = treeCpuMs(pid);
  await page.goto(url);
  // A function, not a string: the page's Content-Security-Policy forbids eval.
  const timing = await page.waitForFunction(
    () => {
      const mark = performance.getEntriesByName('sign-in-rendered')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return mark && fcp ? { render: mark.startTime, fcp: fcp.startTime } : undefined;
    },
    undefined,
    { timeout: 60_000 },
  );
  const { render, fcp } = (await timing.jsonValue()) as { render: number; fcp: number };
  const cpuMs = treeCpuMs(pid) - cpu0;
  await context.close();
  return { renderMs: render, fcpMs: fcp, cpuMs, load: os.loadavg()[0] };
}

function report(label: string, samples: Sample[]): number {
  const m = (pick: (s: Sample) => number) => median(samples.map(pick));
  console.log(
    `  ${label.padEnd(34)} first render ${m((s) => s.renderMs)
      .toFixed(0)
      .padStart(5)} ms   FCP ${m((s) => s.fcpMs)
      .toFixed(0)
      .padStart(5)} ms` +
      `   browser CPU/load ${m((s) => s.cpuMs)
        .toFixed(0)
        .padStart(5)} ms   load avg ${m((s) => s.load).toFixed(2)}`,
  );
  return m((s) => s.renderMs);
}

async function main(): Promise<void> {
  if (!existsSync(path.join(BUILT, '.vite/manifest.json'))) throw new Error('dist/apps/console is not built: npx nx run console:build');

  const js = firstPageJavaScript();
  console.log(`First page's JavaScript (gzip -9), the entry and its static imports (load avg ${os.loadavg()[0].toFixed(2)}, ${os.cpus().length} cores):`);
  for (const { file, gzip } of js.files) console.log(`  ${file.padEnd(44)} ${(gzip / 1024).toFixed(1).padStart(7)} KB`);
  console.log(
    `  ${'total'.padEnd(44)} ${(js.total / 1024).toFixed(1).padStart(7)} KB   (target < ${TARGET_KB} KB: ${js.total / 1024 < TARGET_KB ? 'met' : 'missed'})`,
  );

  // What the gateway serves: a copy (a rebuild meanwhile changes nothing), with the baseline page beside it.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-console-'));
  cpSync(BUILT, dir, { recursive: true });
  writeFileSync(path.join(dir, 'baseline.html'), BASELINE_PAGE);
  writeFileSync(path.join(dir, 'baseline.js'), BASELINE_SCRIPT);
  const redis = await startPrivateRedis();
  const gateway = await startService(gatewayService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: redis.url,
      SERVICE_ROLE: 'api',
      GATEWAY_CONSOLE_DIR: dir,
    },
  });
  const base = `http://127.0.0.1:${gateway.port}`;
  const browser = await chromium.launch(systemChromium());
  const pid = chromiumPid();
  try {
    const cases = [
      { label: 'console /sign-in', url: `${base}/sign-in`, samples: [] as Sample[] },
      { label: 'baseline: the form as plain HTML', url: `${base}/baseline.html`, samples: [] as Sample[] },
    ];
    // One warm-up load each (the gateway's and the browser's first request), then rounds alternating.
    for (const c of cases) await loadOnce(browser, c.url, pid);
    for (let round = 0; round < LOADS; round++) for (const c of round % 2 ? [...cases].reverse() : cases) c.samples.push(await loadOnce(browser, c.url, pid));
    console.log(`\nTime to first render, median of ${LOADS} loads each, fresh context per load (Chromium at ${systemChromium().executablePath}):`);
    const consoleMs = report(cases[0].label, cases[0].samples);
    const baselineMs = report(cases[1].label, cases[1].samples);
    console.log(`  the console's own cost: ${(consoleMs - baselineMs).toFixed(0)} ms over the baseline`);
  } finally {
    await browser.close();
    await gateway.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
