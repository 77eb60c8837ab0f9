#!/usr/bin/env node
// `node tools/scripts/install.mjs [--force]`: installs the locked dependencies when they are missing
// or stale (always with --force), the way `npm run up` and `npm test` do. `.ci/run` uses it.
import { ensureInstalled } from './lib/workspace.mjs';

await ensureInstalled({ force: process.argv.includes('--force') });
