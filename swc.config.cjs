'use strict';
// One SWC configuration for tests (@swc/jest), builds (tools/build.mjs) and the TypeScript hook of
// child processes (libs/testing/jest/register-ts.cjs); a workspace file like tsconfig.base.json, so
// that no lib reaches into tools/.
// Nest and TypeORM read constructor and property types through decorator metadata, so legacy
// decorators with metadata are required; tsc is only used for type checking (`npm run typecheck`).
const { compilerOptions } = require('./tsconfig.base.json');

const root = __dirname;

/** @param {{ sourceMaps?: boolean | 'inline' }} [opts] */
function swcOptions(opts = {}) {
  return {
    $schema: 'https://swc.rs/schema.json',
    sourceMaps: opts.sourceMaps ?? 'inline',
    module: { type: 'commonjs', strict: true, noInterop: false },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
      baseUrl: root,
      paths: compilerOptions.paths,
    },
  };
}

module.exports = { swcOptions, root };
