'use strict';
// Nx plugin (nx.json "plugins"): every project with a project.json and a jest.config.cjs gets the
// targets test:unit, test:integration and test:e2e beside its `test` (all tiers), each running
// its own Jest config with TEST_TIER set (libs/testing/jest/tiers.cjs). A new project gets them too.
//   npx nx run platform:test:unit      npx nx run-many -t test:unit
const fs = require('node:fs');
const path = require('node:path');
const { TIERS } = require('../../libs/testing/jest/tiers.cjs');

/** The tier targets of one project (root relative to the workspace). */
function tierTargets() {
  const targets = {};
  for (const tier of Object.keys(TIERS)) {
    targets[`test:${tier}`] = {
      executor: 'nx:run-commands',
      options: { command: 'jest -c {projectRoot}/jest.config.cjs --passWithNoTests', env: { TEST_TIER: tier } },
      inputs: ['default', '^production', '{workspaceRoot}/tools/jest/preset.cjs', '{workspaceRoot}/libs/testing/jest/tiers.cjs'],
      cache: false,
    };
  }
  return targets;
}

const createNodes = [
  '**/jest.config.cjs',
  (configFiles, _options, context) =>
    configFiles
      .map((file) => [file, path.dirname(file)])
      .filter(([, root]) => root !== '.' && fs.existsSync(path.join(context.workspaceRoot, root, 'project.json')))
      .map(([file, root]) => [file, { projects: { [root]: { targets: tierTargets() } } }]),
];

module.exports = { name: 'platform-test-tiers', createNodes, tierTargets };
