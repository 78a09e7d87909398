import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importsOf, isTestFile, resolveInWorkspace, root } from './source-imports';

describe('importsOf', () => {
  it('reads every kind of import with a literal specifier, and the names taken', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
    const file = path.join(dir, 'sample.ts');
    fs.writeFileSync(
      file,
      [
        "import def, { a, b as c } from './one';",
        "import * as ns from '@platform/two';",
        "import type { T } from 'three';",
        "export { x } from '../four';",
        "import eq = require('five');",
        "const r = require('six');",
        "const lazy = () => import('seven');",
        "const where = require.resolve('eight');",
        "// import { no } from 'comment';",
        "const text = \"require('string')\";",
        'const dynamic = require(name);',
      ].join('\n'),
    );
    try {
      expect(importsOf(file)).toEqual([
        { specifier: './one', names: ['default', 'a', 'b'] },
        { specifier: '@platform/two', names: ['*'] },
        { specifier: 'three', names: ['T'] },
        { specifier: '../four', names: [] },
        { specifier: 'five', names: [] },
        { specifier: 'six', names: [] },
        { specifier: 'seven', names: [] },
        { specifier: 'eight', names: [] },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resolveInWorkspace', () => {
  const from = path.join(root, 'apps/demo-api/bench/demo.bench.ts');

  it('follows relative paths and the tsconfig aliases, not packages', () => {
    expect(resolveInWorkspace(from, '../../../tools/bench/harness')).toBe(path.join(root, 'tools/bench/harness'));
    expect(resolveInWorkspace(from, '@platform/bench')).toBe(path.join(root, 'libs/bench/src/index.ts'));
    expect(resolveInWorkspace(from, '@platform/nx-plugin')).toBe(path.join(root, 'tools/nx-plugin'));
    expect(resolveInWorkspace(from, 'pg')).toBeUndefined();
    expect(resolveInWorkspace(from, 'node:http')).toBeUndefined();
  });
});

describe('isTestFile', () => {
  it.each([
    ['a.spec.ts', true],
    ['a.integration-spec.ts', true],
    ['a.e2e-spec.ts', true],
    ['a.ts', false],
    ['spec.ts', false],
  ])('%s → %s', (file, expected) => {
    expect(isTestFile(file)).toBe(expected);
  });
});
