#!/usr/bin/env node
// The console's `test` target: jest's unit tests of pure logic, then the Playwright browser tests
// against a whole platform booted once (e2e/global-setup.ts). Arguments name spec files and skip
// the unit tests: `npx nx run console:test sign-in admin` or `node apps/console/scripts/test.mjs e2e/admin.spec.ts`.
//
// CI sums jest's `Tests:` lines per project (.ci/run): the unit tests' own summary lines are
// relabelled and their counts handed to the browser tests' reporter, which prints the sums once.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

function run(command, args, { env = process.env, relabel = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: relabel ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (relabel)
      for (const [input, output] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ])
        readline.createInterface({ input }).on('line', (line) => output.write(`${line.replace(/^((?:\x1b\[[0-9;]*m)*)(Test Suites|Tests):/, '$1Unit $2:')}\n`));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const specs = process.argv.slice(2);
let status = 0;
const env = { ...process.env };
if (!specs.length) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'console-unit-'));
  const results = path.join(dir, 'results.json');
  status = await run(bin('jest'), ['-c', 'apps/console/jest.config.js', '--json', `--outputFile=${results}`], { relabel: true });
  try {
    const r = JSON.parse(readFileSync(results, 'utf8'));
    env.CONSOLE_UNIT_COUNTS = JSON.stringify({
      tests: { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests, total: r.numTotalTests },
      suites: { passed: r.numPassedTestSuites, failed: r.numFailedTestSuites, skipped: r.numPendingTestSuites, total: r.numTotalTestSuites },
    });
  } catch {
    console.error('The unit tests left no results: see their output above.');
    status ||= 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const browser = await run(bin('playwright'), ['test', '-c', 'apps/console/e2e/playwright.config.ts', ...specs], { env });
process.exit(status || browser);
