import { defineConfig } from '@playwright/test';
import { systemChromium } from '@platform/testing';
import path from 'node:path';
import { OUTPUT_DIR } from './paths';

/**
 * The console's browser tests: one platform booted once for the run (global-setup.ts), one worker,
 * Debian's Chromium. `npx playwright test -c apps/console/e2e/playwright.config.ts [files]`.
 */
export default defineConfig({
  testDir: __dirname,
  testMatch: '*.spec.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  globalSetup: path.join(__dirname, 'global-setup.ts'),
  outputDir: path.join(OUTPUT_DIR, 'results'),
  reporter: [['list'], [path.join(__dirname, 'summary-reporter.ts')]],
  use: {
    // Each test's last state, kept beside its results.
    screenshot: 'on',
    trace: 'retain-on-failure',
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: systemChromium(),
      },
    },
  ],
});
