module.exports = {
  ...require('../../jest.preset.js')(__dirname),
  // The auth suite gets a database of its own: key-rotation tests change which key signs.
  globalSetup: '<rootDir>/test/global-setup.ts',
};
