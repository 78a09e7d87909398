import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS Nx plugin
const { createNodes } = require('../jest/nx-test-tiers.cjs');

const root = path.resolve(__dirname, '../..');

describe('Nx plugin tools/jest/nx-test-tiers.cjs', () => {
  it('gives every Nx project with a Jest config the three tier targets (not the root config, not folders without project.json)', async () => {
    const [glob, create] = createNodes;
    expect(glob).toBe('**/jest.config.cjs');
    const results = await create(['libs/platform/jest.config.cjs', 'jest.config.cjs', 'tools/e2e/jest.config.cjs'], undefined, { workspaceRoot: root });
    expect(results.map(([file]: [string]) => file)).toEqual(['libs/platform/jest.config.cjs']);
    const targets = results[0][1].projects['libs/platform'].targets;
    expect(Object.keys(targets)).toEqual(['test:unit', 'test:integration', 'test:e2e']);
    expect(targets['test:integration'].options).toEqual({ command: 'jest -c {projectRoot}/jest.config.cjs --passWithNoTests', env: { TEST_TIER: 'integration' } });
  });
});
