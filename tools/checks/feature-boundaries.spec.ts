// The feature-folder lint rules (tools/eslint/feature-boundaries.mjs) as `npm run lint` runs them:
// the workspace's own ESLint configuration, on scratch sources placed (by path only) inside an app.
// Each deliberate violation must fail lint, and each allowed shape must pass.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

const MARK = '@@lint-results@@';

/**
 * ESLint's configuration is an ES module, which Jest's module system cannot import: the cases are
 * linted in one child Node process with the workspace's ESLint, each with its file path. Returns the
 * `platform/*` rule ids reported for each case.
 */
function lintCases(cases: { file: string; code: string }[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const eslint = new ESLint({ cwd: process.cwd() });
    Promise.all(cases.map((c) => eslint.lintText(c.code, { filePath: c.file }))).then((results) => {
      const ids = results.map(([r]) => r.messages.filter((m) => m.severity === 2 && (m.ruleId || '').startsWith('platform/')).map((m) => m.ruleId));
      process.stdout.write('${MARK}' + JSON.stringify(ids));
    }, (err) => { console.error(err); process.exit(1); });`;
  const input = JSON.stringify(cases.map((c) => ({ file: path.join(root, c.file), code: c.code })));
  const out = execFileSync(process.execPath, ['-e', script], { cwd: root, input, encoding: 'utf8' });
  return JSON.parse(out.slice(out.indexOf(MARK) + MARK.length)) as string[][];
}

const pending: { file: string; code: string }[] = [];
let results: string[][] | undefined;

/** Registers a case (at collection time); its result is read inside a test, after one lint run for all. */
function platformErrors(file: string, code: string): () => string[] {
  const index = pending.push({ file, code }) - 1;
  return () => (results ??= lintCases(pending))[index];
}

const foreignRepo = "import { CampaignsRepository } from '../campaigns/campaigns.repository';\nexport const x = CampaignsRepository;\n";
const ownRepo = "import { ContactsRepository } from './contacts.repository';\nexport const x = ContactsRepository;\n";
const databaseTypes = "import { Database } from '@platform/database';\nimport { DataSource, type EntityManager } from 'typeorm';\nexport type X = [Database, DataSource, EntityManager];\n";
const sql = 'export const q = `SELECT id FROM ${"email"}.contacts WHERE project_id = $1`;\nexport const w = "UPDATE contacts SET x = 1";\n';
const moduleExportingRepo = [
  "import { Module } from '@nestjs/common';",
  "import { ContactsRepository } from './contacts.repository';",
  "import { ContactsService } from './contacts.service';",
  '@Module({ providers: [ContactsRepository, ContactsService], exports: [ContactsService, ContactsRepository] })',
  'export class ScratchModule {}',
  '',
].join('\n');
const testReaching = "import { Database } from '@platform/database';\nimport { CampaignsRepository } from '../campaigns/campaigns.repository';\nexport const x = [Database, CampaignsRepository];\n";

const BOUNDARY = 'platform/feature-boundaries';
const DATABASE = 'platform/database-in-repositories';

const cases = {
  foreignInService: platformErrors('apps/email-api/src/contacts/scratch.service.ts', foreignRepo),
  foreignTypeNested: platformErrors('apps/email-api/src/contacts/jobs/scratch.ts', "import type { Row } from '../../campaigns/campaigns.repository';\nexport type X = Row;\n"),
  ownInService: platformErrors('apps/email-api/src/contacts/scratch.service.ts', ownRepo),
  ownNested: platformErrors('apps/email-api/src/contacts/jobs/scratch.ts', ownRepo.replace('./contacts', '../contacts')),
  ownInController: platformErrors('apps/email-api/src/contacts/scratch.controller.ts', ownRepo),
  ownInGateway: platformErrors('apps/email-api/src/contacts/scratch.gateway.ts', ownRepo),
  moduleExport: platformErrors('apps/email-api/src/contacts/scratch.module.ts', moduleExportingRepo),
  databaseInService: platformErrors('apps/email-api/src/contacts/scratch.service.ts', databaseTypes),
  databaseInRepository: platformErrors('apps/email-api/src/contacts/scratch.repository.ts', databaseTypes),
  sqlInService: platformErrors('apps/email-api/src/contacts/scratch.service.ts', sql),
  sqlInRepository: platformErrors('apps/email-api/src/contacts/scratch.repository.ts', sql),
  sqlInMigration: platformErrors('apps/email-api/src/migrations/1700000000000-Scratch.ts', sql),
  prose: platformErrors('apps/email-api/src/contacts/scratch.service.ts', "export const m = 'Select a contact from the list, then update its settings';\n"),
  inTest: platformErrors('apps/email-api/src/contacts/scratch.integration-spec.ts', testReaching),
  inBench: platformErrors('apps/email-api/bench/scratch.bench.ts', testReaching.replace('../campaigns', '../src/campaigns')),
};

describe('the feature folder is the boundary (lint, the workspace configuration on scratch sources)', () => {
  it("refuses another feature's repository in a service, also as a type-only import from a nested folder", () => {
    expect(cases.foreignInService()).toEqual([BOUNDARY]);
    expect(cases.foreignTypeNested()).toEqual([BOUNDARY]);
  });

  it("allows the feature's own repository from any folder inside the feature", () => {
    expect(cases.ownInService()).toEqual([]);
    expect(cases.ownNested()).toEqual([]);
  });

  it('refuses any repository in a controller or a socket gateway', () => {
    expect(cases.ownInController()).toEqual([BOUNDARY]);
    expect(cases.ownInGateway()).toEqual([BOUNDARY]);
  });

  it('refuses a module that exports a repository', () => {
    expect(cases.moduleExport()).toEqual([BOUNDARY]);
  });

  it('refuses Database, DataSource and EntityManager outside a repository, and allows them in one', () => {
    expect(cases.databaseInService()).toEqual([DATABASE, DATABASE, DATABASE]);
    expect(cases.databaseInRepository()).toEqual([]);
  });

  it('refuses SQL text outside a repository or a migration, and not prose', () => {
    expect(cases.sqlInService()).toEqual([DATABASE, DATABASE]);
    expect(cases.sqlInRepository()).toEqual([]);
    expect(cases.sqlInMigration()).toEqual([]);
    expect(cases.prose()).toEqual([]);
  });

  it('lets tests and benches reach any repository of their app', () => {
    expect(cases.inTest()).toEqual([]);
    expect(cases.inBench()).toEqual([]);
  });
});
