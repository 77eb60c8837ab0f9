import type { FullResult, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import path from 'node:path';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  total: number;
}

/** `1 failed, 5 passed, 6 total`, in jest's words and order. */
export function jestLine(counts: Counts): string {
  const parts = [
    counts.failed && `${counts.failed} failed`,
    counts.skipped && `${counts.skipped} skipped`,
    counts.passed && `${counts.passed} passed`,
    `${counts.total} total`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** A test that never ran because the run failed before it (global setup) counts as failed. */
function outcomeOf(test: TestCase, runFailed: boolean): keyof Omit<Counts, 'total'> {
  if (test.results.length === 0) return runFailed ? 'failed' : 'skipped';
  const outcome = test.outcome();
  return outcome === 'expected' || outcome === 'flaky' ? 'passed' : outcome === 'skipped' ? 'skipped' : 'failed';
}

/**
 * Prints jest's summary lines (`Test Suites:`, `Tests:`) for the browser tests, which CI sums per
 * project (.ci/run), and each failure as jest heads it (`● file › title`). When the console's test
 * script ran the unit tests first it passes their counts (CONSOLE_UNIT_COUNTS), and the lines are
 * the sums of both.
 */
export default class SummaryReporter implements Reporter {
  private root?: Suite;

  onBegin(_config: unknown, suite: Suite): void {
    this.root = suite;
  }

  printsToStdio(): boolean {
    return true;
  }

  onEnd(result: FullResult): void {
    const runFailed = result.status !== 'passed';
    const tests = this.root?.allTests() ?? [];
    const browser: Counts = { passed: 0, failed: 0, skipped: 0, total: tests.length };
    const files = new Map<string, boolean>();
    const failures: string[] = [];
    for (const test of tests) {
      const outcome = outcomeOf(test, runFailed);
      browser[outcome] += 1;
      const file = path.basename(test.location.file);
      files.set(file, (files.get(file) ?? true) && outcome !== 'failed');
      if (outcome === 'failed') failures.push(`  ● ${file} › ${test.titlePath().slice(3).join(' › ')}`);
    }
    const suites: Counts = {
      passed: [...files.values()].filter(Boolean).length,
      failed: [...files.values()].filter((ok) => !ok).length,
      skipped: 0,
      total: files.size,
    };
    if (tests.length === 0 && runFailed) {
      suites.failed = 1;
      suites.total = 1;
    }
    const unit = readUnitCounts();
    const sum = (a: Counts, b?: Counts): Counts =>
      b ? { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped, total: a.total + b.total } : a;
    const lines = [''];
    if (failures.length) lines.push('Failed browser tests:', ...failures, '');
    if (unit) lines.push(`Browser tests: ${jestLine(browser)}; unit tests: ${jestLine(unit.tests)}`);
    lines.push(`Test Suites: ${jestLine(sum(suites, unit?.suites))}`, `Tests:       ${jestLine(sum(browser, unit?.tests))}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

function readUnitCounts(): { tests: Counts; suites: Counts } | undefined {
  const raw = process.env.CONSOLE_UNIT_COUNTS;
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as { tests: Counts; suites: Counts };
  } catch {
    return undefined;
  }
}
