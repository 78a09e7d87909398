'use strict';
// `npx nx g @platform/nx-plugin:feature <app> <name> [--singular x] [--path api/v1/x]`
//
// Writes a feature folder apps/<app>/src/<name>/ in the app's style (files/ holds the templates):
// module, controller, service, repository, dto/, an entity when the app's repositories map entities
// (`db.repository(Entity)`; else the repository speaks SQL with typed rows), and an e2e test; a
// migration that creates the feature's table in the service's schema; and wires the module into the
// root module and the migration (and entity) into the lists given to `DatabaseModule.forRoot`. The
// generated code keeps the feature-folder rules (tools/eslint/feature-boundaries.mjs): the service
// injects Transactions and its own repository, only the repository injects Database, the module
// exports the service, errors are ApiError. Plain CommonJS, like the service generator.
const path = require('node:path');
const ts = require('typescript');
const { generateFiles, logger, names } = require('@nx/devkit');
const { REGISTRY_FILE, parseRegistry } = require('../../../../../deploy/apps.cjs');

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Tables every app with the outbox has (createOutboxTables). */
const MESSAGING_TABLES = ['outbox', 'processed_events'];
/** What the error filters of @platform/errors answer for a 404 and for a validation failure. */
const ERROR_SHAPES = {
  EnvelopeErrorFilter: { shape: 'envelope', validationStatus: 422 },
  DetailErrorFilter: { shape: 'detail', validationStatus: 422 },
  PlainErrorFilter: { shape: 'plain', validationStatus: 400 },
};

/** 'shipping-notes' → 'shipping-note', 'categories' → 'category', 'boxes' → 'box', 'inventory' → 'inventory'. */
function singularOf(name) {
  if (/ies$/.test(name)) return name.replace(/ies$/, 'y');
  if (/(ss|x|z|ch|sh)es$/.test(name)) return name.replace(/es$/, '');
  if (/[^s]s$/.test(name)) return name.slice(0, -1);
  return name;
}

/** The route prefix most of the app's controllers use: 'api/v1/', 'api/' or none. */
function routePrefix(tree, src) {
  const paths = [];
  const visit = (dir) => {
    for (const child of tree.children(dir)) {
      const file = `${dir}/${child}`;
      if (tree.isFile(file)) {
        if (/\.controller\.ts$/.test(file)) for (const m of tree.read(file, 'utf8').matchAll(/@Controller\(\s*'([^']+)'/g)) paths.push(m[1].replace(/^\//, ''));
      } else if (child !== 'migrations') visit(file);
    }
  };
  visit(src);
  const share = (prefix) => paths.filter((p) => p.startsWith(prefix)).length / (paths.length || 1);
  if (share('api/v1/') > 0.5) return 'api/v1/';
  if (share('api/') > 0.5) return 'api/';
  return '';
}

function parse(file, text) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function find(node, test) {
  if (test(node)) return node;
  return ts.forEachChild(node, (child) => find(child, test)) ?? null;
}

/** The array literal a top-level `const NAME = [...]` (or `: T[] = [...]`) of the file holds. */
function constArray(source, name) {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer && ts.isArrayLiteralExpression(d.initializer)) return d.initializer;
    }
  }
  return null;
}

/** The array an option of DatabaseModule.forRoot lists, following a constant of the file (`migrations: AUTH_MIGRATIONS`). */
function listedArray(source, value) {
  if (ts.isArrayLiteralExpression(value)) return value;
  if (ts.isIdentifier(value)) return constArray(source, value.text);
  return null;
}

/**
 * The array that holds the app's own entities: the `entities` list itself, or a constant it
 * spreads (`[...AUTH_ENTITIES, ...messagingEntities]`); null when it holds none (SQL repositories).
 */
function ownEntities(source, value) {
  const array = listedArray(source, value);
  if (!array) return null;
  if (array.elements.some((e) => !ts.isSpreadElement(e))) return array;
  for (const e of array.elements) {
    if (ts.isIdentifier(e.expression)) {
      const inner = ownEntities(source, e.expression);
      if (inner) return inner;
    }
  }
  return null;
}

/** Text edits ({at, text}) applied from the end, so positions stay valid; edits at one position keep their order. */
function applyEdits(text, edits) {
  return edits
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => b.at - a.at || b.i - a.i)
    .reduce((out, e) => out.slice(0, e.at) + e.text + out.slice(e.at), text);
}

/** An edit that adds `item` to `array` after `after` (default: its last element), on its own line when the array is multi-line. */
function appendTo(text, array, item, after = array.elements[array.elements.length - 1]) {
  if (!after) return { at: array.getEnd() - 1, text: item };
  const multiline = text.slice(array.getStart(), array.getEnd()).includes('\n');
  if (!multiline) return { at: after.getEnd(), text: `, ${item}` };
  const lineStart = text.lastIndexOf('\n', after.getStart()) + 1;
  const indent = /^\s*/.exec(text.slice(lineStart))[0];
  const trailingComma = text[after.getEnd()] === ',';
  return trailingComma ? { at: after.getEnd() + 1, text: `\n${indent}${item},` } : { at: after.getEnd(), text: `,\n${indent}${item}` };
}

/**
 * An edit that adds an import of `names` from `from`: after the last import of the same folder when
 * there is one (the migrations stay together), else among the relative imports by path.
 */
function importEdit(source, names, from) {
  const imports = source.statements.filter(ts.isImportDeclaration);
  const relative = imports.filter((i) => i.moduleSpecifier.text.startsWith('.'));
  const line = `import { ${names.join(', ')} } from '${from}';`;
  const folder = from.slice(0, from.lastIndexOf('/') + 1);
  const sameFolder = relative.filter((i) => i.moduleSpecifier.text.startsWith(folder));
  if (sameFolder.length) return { at: sameFolder[sameFolder.length - 1].getEnd(), text: `\n${line}` };
  const before = relative.find((i) => i.moduleSpecifier.text.localeCompare(from) > 0);
  if (before) return { at: before.getStart(), text: `${line}\n` };
  const last = relative[relative.length - 1] ?? imports[imports.length - 1];
  return last ? { at: last.getEnd(), text: `\n${line}` } : { at: 0, text: `${line}\n` };
}

/** The service definition's export, config class and error filter (src/service.ts). */
function serviceDefinition(tree, src) {
  const text = tree.read(`${src}/service.ts`, 'utf8') ?? '';
  const def = /export const (\w+)\s*:\s*ServiceDefinition<(\w+)>/.exec(text);
  if (!def) throw new Error(`${src}/service.ts has no \`export const <name>Service: ServiceDefinition<Config>\` (docs/lib-contracts.md, "Layout of an app")`);
  const filter = /errorFilter\s*:[^=]*=>\s*new\s+(\w+)/.exec(text)?.[1];
  return { service: def[1], config: def[2], filter, ...(ERROR_SHAPES[filter] ?? { shape: 'other', validationStatus: null }) };
}

/** The newest migration's timestamp of the app (file names `<timestamp>-<Name>.ts`). */
function latestMigration(tree, src) {
  const dir = `${src}/migrations`;
  if (!tree.exists(dir)) return 0;
  return Math.max(0, ...tree.children(dir).map((f) => Number(/^(\d{13})-/.exec(f)?.[1] ?? 0)));
}

/** True when one of the app's migrations creates `table`. */
function tableExists(tree, src, table) {
  if (MESSAGING_TABLES.includes(table)) return true;
  const dir = `${src}/migrations`;
  if (!tree.exists(dir)) return false;
  const creates = new RegExp(`CREATE\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?[^\\s(]*?\\b"?${table}"?\\s*\\(`, 'i');
  return tree.children(dir).some((f) => creates.test(tree.read(`${dir}/${f}`, 'utf8')));
}

/** The apps a feature can be added to: registered with a database, with a root module. */
function appsWithDatabase(tree, services) {
  const hasDatabase = (app) => (tree.read(`apps/${app}/src/app.module.ts`, 'utf8') ?? '').includes('DatabaseModule.forRoot');
  return services.filter((s) => s.database && hasDatabase(s.name)).map((s) => s.name).sort();
}

async function featureGenerator(tree, options) {
  const { app, name } = options;
  if (typeof name !== 'string' || !KEBAB.test(name)) {
    throw new Error(`feature name must be kebab-case, e.g. shipping-notes (got ${JSON.stringify(name)})`);
  }
  const { services } = parseRegistry(tree.read(REGISTRY_FILE, 'utf8'));
  const registered = services.find((s) => s.name === app);
  const src = `apps/${app}/src`;
  if (typeof app !== 'string' || !registered || !tree.exists(`${src}/app.module.ts`)) {
    throw new Error(`unknown app ${JSON.stringify(app)}: give one of ${appsWithDatabase(tree, services).join(', ')} (the apps of ${REGISTRY_FILE} with a database)`);
  }
  if (!registered.database) {
    throw new Error(`${app} has no database (${REGISTRY_FILE}: "database": null): a feature keeps its rows in its service's schema, so it needs a service with one`);
  }
  if (tree.exists(`${src}/${name}`)) throw new Error(`${src}/${name} exists already: the feature ${name} is there, choose another name`);
  const singular = options.singular ?? singularOf(name);
  if (!KEBAB.test(singular)) throw new Error(`--singular must be kebab-case, e.g. shipping-note (got ${JSON.stringify(singular)})`);
  const table = name.replace(/-/g, '_');
  if (tableExists(tree, src, table)) throw new Error(`${app} has a table ${table} already (its migrations, or the outbox and inbox of @platform/messaging): choose another feature name`);

  const modulePath = `${src}/app.module.ts`;
  const moduleText = tree.read(modulePath, 'utf8');
  const source = parse(modulePath, moduleText);
  const forRoot = find(
    source,
    (n) => ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.getText() === 'DatabaseModule.forRoot',
  );
  if (!forRoot) {
    throw new Error(`${modulePath} does not import DatabaseModule.forRoot: ${app} keeps no tables of its own (its ${REGISTRY_FILE} database is unused), so a feature with a repository cannot be added`);
  }
  const optionsArg = forRoot.arguments[0];
  const option = (key) =>
    optionsArg && ts.isObjectLiteralExpression(optionsArg)
      ? optionsArg.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === key)?.initializer
      : undefined;
  const migrations = option('migrations') && listedArray(source, option('migrations'));
  if (!migrations) throw new Error(`${modulePath}: DatabaseModule.forRoot's migrations are neither an array nor a constant array of that file; list them there first`);
  const rootImports = find(
    source,
    (n) => ts.isPropertyAssignment(n) && n.name.getText() === 'imports' && ts.isArrayLiteralExpression(n.initializer) && n.initializer.elements.includes(forRoot),
  );
  if (!rootImports) throw new Error(`${modulePath}: DatabaseModule.forRoot is not in a module's \`imports: [...]\`; wire the feature by hand`);
  const entities = option('entities') ? ownEntities(source, option('entities')) : null;
  const entityStyle = entities !== null;

  const feature = names(name);
  const one = names(singular);
  const entityClass = entityStyle && entities.elements.every((e) => ts.isSpreadElement(e) || /Entity$/.test(e.getText())) ? `${one.className}Entity` : one.className;
  const timestamp = Math.max(Date.now(), Math.ceil((latestMigration(tree, src) + 1) / 100_000) * 100_000);
  const migrationClass = `Create${feature.className}${timestamp}`;
  const taken = [`${feature.className}Module`, migrationClass, ...(entityStyle ? [entityClass] : [])].filter((id) => new RegExp(`\\b${id}\\b`).test(moduleText));
  if (taken.length) throw new Error(`${modulePath} already has ${taken.join(', ')}: choose another feature name`);

  const definition = serviceDefinition(tree, src);
  const route = (options.path ?? `${routePrefix(tree, src)}${name}`).replace(/^\/+|\/+$/g, '');
  const substitutions = {
    app,
    name,
    table,
    route,
    timestamp: String(timestamp),
    feature,
    one,
    entityClass,
    entityStyle,
    singularFile: one.fileName,
    featureClass: feature.className,
    oneText: singular.replace(/-/g, ' '),
    OneText: singular.charAt(0).toUpperCase() + singular.slice(1).replace(/-/g, ' '),
    manyText: name.replace(/-/g, ' '),
    aOne: `${/^[aeiou]/.test(singular) ? 'an' : 'a'} ${singular.replace(/-/g, ' ')}`,
    notFoundCode: `${one.constantName}_NOT_FOUND`,
    serviceExport: definition.service,
    configClass: definition.config,
    errorShape: definition.shape,
    errorFilter: definition.filter,
    validationStatus: definition.validationStatus,
    migrationClass,
  };
  const files = path.join(__dirname, 'files');
  generateFiles(tree, path.join(files, 'feature'), `${src}/${name}`, substitutions);
  generateFiles(tree, path.join(files, entityStyle ? 'entity-repository' : 'sql-repository'), `${src}/${name}`, substitutions);
  generateFiles(tree, path.join(files, 'migration'), `${src}/migrations`, substitutions);

  const lastListed = (array) => [...array.elements].reverse().find((e) => !ts.isSpreadElement(e));
  const imports = [
    [`${feature.className}Module`, `./${name}/${name}.module`],
    [migrationClass, `./migrations/${timestamp}-Create${feature.className}`],
    ...(entityStyle ? [[entityClass, `./${name}/entities/${one.fileName}.entity`]] : []),
  ].sort((a, b) => a[1].localeCompare(b[1]));
  const edits = [
    ...imports.map(([id, from]) => importEdit(source, [id], from)),
    appendTo(moduleText, migrations, migrationClass),
    appendTo(moduleText, rootImports.initializer, `${feature.className}Module`, lastListed(rootImports.initializer)),
    ...(entityStyle ? [appendTo(moduleText, entities, entityClass, lastListed(entities))] : []),
  ];
  tree.write(modulePath, applyEdits(moduleText, edits));

  return () => {
    logger.info(
      `${app}: feature ${name} at /${route} (${entityStyle ? `entity ${entityClass}` : 'SQL repository'}), table ${registered.database}.${table} ` +
        `(migration ${migrationClass}), wired into ${modulePath}.\n` +
        `Next: add its columns (migration, ${entityStyle ? 'entity, ' : ''}repository, DTOs), declare access on the controller the way ${app} does, ` +
        `then npx jest apps/${app}/src/${name}`,
    );
  };
}

module.exports = featureGenerator;
module.exports.default = featureGenerator;
module.exports.singularOf = singularOf;
