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
// workerIdleMemoryLimit, which Jest accepts only here: a worker's heap grows with every test file it
// runs (each file's modules are loaded anew, and not all of them are collected); past 1.5 GB after a
// file, Jest starts the worker afresh rather than let it reach V8's heap limit.
module.exports = { projects, maxWorkers: 2, testTimeout: 60_000, workerIdleMemoryLimit: '1536MB' };
