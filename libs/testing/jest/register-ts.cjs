'use strict';
// `node -r libs/testing/jest/register-ts.cjs script.ts`: runs TypeScript in a plain Node process with
// the repo's SWC settings and @platform/* aliases. For tests that must run code outside Jest's VM
// (PGlite's dynamic import() fails inside it), in a child process.
const fs = require('node:fs');
const swc = require('@swc/core');
const { swcOptions } = require('../../../swc.config.cjs');

const options = { ...swcOptions({ sourceMaps: 'inline' }), swcrc: false };

require.extensions['.ts'] = function compileTs(module, filename) {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};
