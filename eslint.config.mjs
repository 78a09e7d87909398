// Lint for the whole workspace. Module boundaries are enforced through Nx project tags:
//   type:app      may use type:lib (never type:testing in production code, never another app)
//   type:lib      may use type:lib only
//   type:testing  may use type:lib and type:testing (test helpers)
//   scope:<svc>   may use scope:<svc> and scope:shared only
import fs from 'node:fs';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import platform from './tools/eslint/feature-boundaries.mjs';

/** Every app of the registry of services (services.json) has its scope. */
const services = JSON.parse(fs.readFileSync(new URL('./services.json', import.meta.url), 'utf8')).services.map((s) => s.name);
/** The registry itself is data every project may read (the gateway routes by it). */
const allow = ['(^|/)services\\.json$'];

export default tseslint.config(
  { ignores: ['**/dist', '**/node_modules', '**/.data', '**/coverage', '**/*.cjs', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    plugins: { '@nx': nx, platform },
    languageOptions: { parser: tseslint.parser },
    rules: {
      // The feature folder is the boundary (tools/eslint/feature-boundaries.mjs; tests and benches are exempt).
      'platform/feature-boundaries': 'error',
      'platform/database-in-repositories': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            ...services.map((s) => ({
              sourceTag: `scope:${s}`,
              onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'],
            })),
          ],
        },
      ],
    },
  },
  {
    // Tests and benchmarks (never shipped) may use the testing lib; production code may not (the rule above).
    files: ['**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts', '**/bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            ...services.map((s) => ({
              sourceTag: `scope:${s}`,
              onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'],
            })),
          ],
        },
      ],
    },
  },
);
