const base = require('../../jest.preset.js')(__dirname);

// @kubernetes/client-node 1.x and the packages it imports are ESM-only: jest compiles them to CommonJS
// (Node >= 20.19 requires them natively, jest cannot).
const ESM_ONLY = ['jose', '@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jsonpath-plus', 'rfc4648'];

module.exports = { ...base, transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`] };
