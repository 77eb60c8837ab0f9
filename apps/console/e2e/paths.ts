import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/**
 * A run's own names: its database (`platform<suffix>`) and its output folder, so that engineers
 * running the console's browser tests at the same time never share either.
 */
export const DATABASE_SUFFIX = process.env.CONSOLE_E2E_DATABASE_SUFFIX ?? '_console';
if (!/^_[a-z0-9_]{1,40}$/.test(DATABASE_SUFFIX))
  throw new Error(`CONSOLE_E2E_DATABASE_SUFFIX must be _ and lowercase letters, digits or _ (got ${DATABASE_SUFFIX})`);

/** Screenshots, traces, the platform's log and the copy of the console this run serves. */
export const OUTPUT_DIR = path.join(ROOT, 'dist/console-e2e', DATABASE_SUFFIX.replace(/^_+/, ''));
export const BUILT_CONSOLE = path.join(ROOT, 'dist/apps/console');

/** The identity provider the gateway offers the console in the browser tests. */
export const OAUTH_PROVIDER = 'console-idp';
