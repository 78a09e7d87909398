'use strict';
// Shared Jest settings for every project: SWC with decorator metadata, the tsconfig path aliases,
// the module runtime with V8's code cache (code-cache-runtime.cjs),
// the global setup that finds (or, outside CI, replaces) PostgreSQL, RabbitMQ and Redis, and the test
// tier chosen with TEST_TIER (libs/testing/jest/tiers.cjs).
const path = require('node:path');
const { swcOptions, root } = require('../../swc.config.cjs');
const { testMatch } = require('../../libs/testing/jest/tiers.cjs');
const { compilerOptions } = require('../../tsconfig.base.json');

// ESM-only packages (and their ESM-only dependencies) that Jest's CommonJS runtime cannot load on
// Node 20: compiled to CommonJS like our own sources.
const esmOnly = ['@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jose', 'jsonpath-plus'];
// linkedom's selector engine (css-select and its helpers) and fast-xml-parser's helpers (knowledge-api).
esmOnly.push(
  ...['css-select', 'boolbase', 'css-what', 'domhandler', 'domelementtype', 'domutils', 'dom-serializer', 'entities'],
  ...['nth-check', 'cssomnom', 'htmlparser2', 'uhyphen', 'fast-xml-parser', '@nodable/entities', 'fast-xml-builder'],
  ...['path-expression-matcher', 'xml-naming', 'is-unsafe', 'strnum', 'anynum'],
);

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(root, target);
}

/** @param {string} projectDir absolute directory of the project */
function preset(projectDir) {
  const name = path.relative(root, projectDir);
  return {
    displayName: name,
    rootDir: projectDir,
    testEnvironment: 'node',
    runtime: path.join(__dirname, 'code-cache-runtime.cjs'),
    testMatch: testMatch(),
    transform: { '^.+\\.(t|j)s$': ['@swc/jest', { ...swcOptions({ sourceMaps: 'inline' }), swcrc: false }] },
    transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
    moduleFileExtensions: ['ts', 'js', 'json'],
    moduleNameMapper,
    globalSetup: path.join(root, 'libs/testing/jest/global-setup.cjs'),
    globalTeardown: path.join(root, 'libs/testing/jest/global-teardown.cjs'),
    testTimeout: 60_000,
  };
}

module.exports = { preset };
