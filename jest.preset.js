// Shared jest settings: swc for speed (types are checked by the typecheck target), path aliases
// from tsconfig.base.json, and integration tests that talk to the real Postgres and Redis.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias.replace('/', '\\/')}$`, path.join(__dirname, target)]),
);

const ESM_ONLY = ['jose'];

/** @param {string} projectDir */
module.exports = (projectDir) => ({
  rootDir: projectDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/generated/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' }, module: { type: 'commonjs' } }],
    // ESM-only packages that CommonJS code requires (Node >= 20.19 does this natively; jest cannot).
    '^.+\\.m?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper,
  setupFiles: [path.join(__dirname, 'tools/jest/env.js')],
  testTimeout: 30000,
  maxWorkers: process.env.CI ? 2 : '50%',
});
