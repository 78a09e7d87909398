'use strict';
// `npm test` runs every project's tests in one Jest run: each app and lib has its own jest.config.cjs.
const fs = require('node:fs');
const path = require('node:path');

const projects = ['apps', 'libs', 'tools']
  .flatMap((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : []))
  .concat(['deploy'])
  .filter((dir) => fs.existsSync(path.join(dir, 'jest.config.cjs')))
  .map((dir) => `<rootDir>/${dir}/jest.config.cjs`);

// testTimeout is a global option (a project's own value only counts when that project runs alone).
module.exports = { projects, maxWorkers: 2, testTimeout: 60_000 };
