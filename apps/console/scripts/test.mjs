#!/usr/bin/env node
// The console's `test` target: jest's unit tests of pure logic, then the Playwright browser tests
// against a whole platform booted once (e2e/global-setup.ts). Arguments name spec files:
// `npx nx run console:test --args="e2e/sign-in.spec.ts"` or `node apps/console/scripts/test.mjs sign-in`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;

const specs = process.argv.slice(2);
let status = 0;
if (!specs.length) status = run(bin('jest'), ['-c', 'apps/console/jest.config.js']);
const config = 'apps/console/e2e/playwright.config.ts';
if (existsSync(path.join(root, config))) status = run(bin('playwright'), ['test', '-c', config, ...specs]) || status;
process.exit(status);
