#!/usr/bin/env node
// Runs the TypeScript CLI of tools/cli/src through tsx, so there is no build step in the repository.
'use strict';
const path = require('node:path');
const tsx = require('tsx/cjs/api');

tsx.require(path.join(__dirname, '..', 'src', 'main.ts'), __filename).main();
