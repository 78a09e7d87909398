// The platform's own lint rules: the feature folder is the boundary (docs/lib-contracts.md, "Layout
// of an app"). They apply to app code under apps/<app>/src; tests and benches (never shipped) may
// reach any repository of their app to set up or inspect data.
import path from 'node:path';

const APP_SOURCE = /(?:^|\/)apps\/([^/]+)\/src\/(.+)$/;
const TEST_FILE = /\.(spec|integration-spec|e2e-spec)\.ts$/;
const REPOSITORY_FILE = /\.repository\.ts$/;
const MIGRATION_FILE = /\/src\/migrations\//;
/** SQL statements as they are written in this codebase: upper-case keywords. */
const SQL = /\b(?:SELECT\s[\s\S]*?\bFROM\b|INSERT\s+INTO\b|UPDATE\s+[\w."$]+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(?:UNIQUE\s+)?INDEX\b|ALTER\s+TABLE\b)/;

/** Where a file sits: its app and its feature folder (the first folder under src; '' for src itself). */
function locate(filename) {
  const normalized = filename.split(path.sep).join('/');
  const m = APP_SOURCE.exec(normalized);
  if (!m) return null;
  const rest = m[2];
  const slash = rest.indexOf('/');
  return { app: m[1], feature: slash < 0 ? '' : rest.slice(0, slash), file: normalized, isTest: TEST_FILE.test(normalized) };
}

function resolveImport(fromFile, source) {
  if (!source.startsWith('.')) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), source));
}

const featureBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'A repository belongs to its feature folder: other features call its service; modules export services, never repositories; controllers and socket gateways call services only.' },
    schema: [],
    messages: {
      foreignRepository: "{{name}} belongs to the feature folder '{{owner}}': call that feature's service (or write a use case that does).",
      repositoryInController: '{{name}}: controllers and socket gateways call services only.',
      exportedRepository: '{{name}}: a module exports services, never repositories.',
    },
  },
  create(context) {
    const here = locate(context.filename ?? context.getFilename());
    if (!here || here.isTest) return {};
    const isController = /\.(controller|gateway|gateways)\.ts$/.test(here.file);
    const isModule = /\.module\.ts$/.test(here.file);
    return {
      ImportDeclaration(node) {
        const target = resolveImport(here.file, String(node.source.value));
        if (!target || !/\.repository$/.test(target)) return;
        const owner = locate(`${target}.ts`);
        const name = path.posix.basename(target);
        if (isController) {
          context.report({ node, messageId: 'repositoryInController', data: { name } });
        } else if (!owner || owner.app !== here.app || owner.feature !== here.feature) {
          context.report({ node, messageId: 'foreignRepository', data: { name, owner: owner?.feature ?? target } });
        }
      },
      ...(isModule
        ? {
            'Decorator[expression.callee.name="Module"] Property[key.name="exports"] > ArrayExpression > Identifier'(node) {
              if (/Repository$/.test(node.name)) context.report({ node, messageId: 'exportedRepository', data: { name: node.name } });
            },
          }
        : {}),
    };
  },
};

const databaseInRepositories = {
  meta: {
    type: 'problem',
    docs: { description: 'Only repositories reach the database: everything else gets Transactions, and no SQL text leaves a repository (migrations aside).' },
    schema: [],
    messages: {
      database: "{{name}} is for repositories only: a service or use case injects Transactions (transaction, newTransaction, lock) and calls repositories through their feature's service.",
      sql: 'SQL outside a repository: put the statement in the repository of the feature that owns the table.',
    },
  },
  create(context) {
    const here = locate(context.filename ?? context.getFilename());
    if (!here || here.isTest || REPOSITORY_FILE.test(here.file) || MIGRATION_FILE.test(here.file)) return {};
    const checkSql = (node, text) => {
      if (SQL.test(text)) context.report({ node, messageId: 'sql' });
    };
    return {
      ImportDeclaration(node) {
        const source = String(node.source.value);
        if (source !== '@platform/database' && source !== 'typeorm') return;
        for (const spec of node.specifiers) {
          const name = spec.type === 'ImportSpecifier' ? spec.imported.name : null;
          if (name === 'Database' || name === 'DataSource' || name === 'EntityManager') {
            context.report({ node: spec, messageId: 'database', data: { name } });
          }
        }
      },
      Literal(node) {
        if (typeof node.value === 'string') checkSql(node, node.value);
      },
      TemplateLiteral(node) {
        checkSql(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' '));
      },
    };
  },
};

export default {
  meta: { name: 'platform' },
  rules: { 'feature-boundaries': featureBoundaries, 'database-in-repositories': databaseInRepositories },
};
