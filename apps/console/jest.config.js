// Unit tests of the console's pure logic (session timing, errors, sections); the browser tests are Playwright's (e2e/).
module.exports = {
  ...require('../../jest.preset.js')(__dirname),
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
