#!/usr/bin/env node
// Runs the TypeScript CLI of libs/manifest through tsx, so there is no build step.
'use strict';
const path = require('node:path');
const tsx = require('tsx/cjs/api');

const entry = path.join(__dirname, '..', '..', '..', 'libs', 'manifest', 'src', 'cli', 'main.ts');
tsx.require(entry, __filename).main();
