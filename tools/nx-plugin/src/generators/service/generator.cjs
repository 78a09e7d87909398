'use strict';
// `npx nx g @platform/nx-plugin:service <name> [--port N] [--prefix /x] [--database x|none] [--spec x] [--description x]`
//
// Writes the app skeleton of docs/lib-contracts.md under apps/<name> (files/ holds the templates;
// files-database/ what only an app with a database has: its first migration), adds the app to the
// registry of services (services.json) unless the contract registers it already, adds its row to
// the README's map, and re-renders what deploy/generate.cjs derives from the registry (compose,
// Kubernetes, the database init script). The gateway's route table, the lint scopes and `npm start`
// read services.json themselves, so nothing else needs editing. Plain CommonJS: Nx loads a local
// generator without a TypeScript transpiler here.
const path = require('node:path');
const { generateFiles, logger, names } = require('@nx/devkit');
const { REGISTRY_FILE, formatRegistry, parseRegistry, registryProblems } = require('../../../../../deploy/apps.cjs');
const { render } = require('../../../../../deploy/generate.cjs');

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const CHOSEN = ['port', 'prefix', 'database'];
/** `--database none`: a service without a database (`"database": null` in services.json). */
const NO_DATABASE = 'none';
const README = 'README.md';
/** The header of the README's map, as tools/checks/registry.spec.ts reads it. */
const MAP_HEADER = /^\|\s*app\s*\|\s*spec\s*\|\s*port\s*\|\s*gateway prefix\s*\|/;

/**
 * 'demo-api' → '/demo', 'logistics-hooks' → '/logistics', 'billing' → '/billing'; when another app
 * holds that prefix, the whole name ('knowledge-mcp' beside knowledge-api → '/knowledge-mcp').
 */
function defaultPrefix(name, taken = []) {
  const short = `/${name.includes('-') ? name.slice(0, name.lastIndexOf('-')) : name}`;
  return taken.includes(short) ? `/${name}` : short;
}

/** The options as registry values: `--database none` is null. */
function chosen(options) {
  return { ...options, ...(options.database === NO_DATABASE ? { database: null } : {}) };
}

/**
 * The registry entry of the new app: the one services.json already holds (options must agree with
 * it), or a new one from the options and defaults, written into services.json.
 */
function register(tree, options) {
  options = chosen(options);
  const registry = parseRegistry(tree.read(REGISTRY_FILE, 'utf8'));
  const registered = registry.services.find((s) => s.name === options.name);
  if (registered) {
    for (const key of CHOSEN) {
      if (options[key] !== undefined && options[key] !== registered[key]) {
        throw new Error(
          `${REGISTRY_FILE} registers ${options.name} with ${key} ${JSON.stringify(registered[key])} (ARCHITECTURE.md's table): ` +
            `leave --${key} out, or change the contract first`,
        );
      }
    }
    if (!registered.prefix) {
      throw new Error(`${REGISTRY_FILE} registers ${options.name} without a gateway prefix; this generator writes a service behind the gateway`);
    }
    return registered;
  }
  const prefix = options.prefix ?? defaultPrefix(options.name, registry.services.map((s) => s.prefix));
  const entry = {
    name: options.name,
    port: options.port ?? Math.max(...registry.services.map((s) => s.port)) + 1,
    prefix,
    database: options.database === undefined ? prefix.slice(1).replace(/-/g, '_') : options.database,
    hpa: true,
  };
  const services = [...registry.services, entry];
  const problems = registryProblems(services);
  if (problems.length) throw new Error(`cannot register ${options.name} in ${REGISTRY_FILE}:\n  ${problems.join('\n  ')}`);
  tree.write(REGISTRY_FILE, formatRegistry({ ...registry, services }));
  return entry;
}

/** Writes every file deploy/generate.cjs renders that differs from the tree's. */
function renderDeployment(tree) {
  const { services } = parseRegistry(tree.read(REGISTRY_FILE, 'utf8'));
  const files = render(services, (app) => tree.exists(`apps/${app}/src`));
  for (const [file, content] of Object.entries(files)) {
    if (!tree.exists(file) || tree.read(file, 'utf8') !== content) tree.write(file, content);
  }
}

const cellsOf = (line) => line.split('|').slice(1, -1).map((c) => c.trim());
const rowOf = (cells) => `| ${cells.join(' | ')} |`;

/**
 * The app's row in the README's map (`| [app](apps/app/README.md) | spec | port | gateway prefix | what
 * it is |`, the first table with that header), with the registry's port and prefix: a new row after the
 * rows of the apps registered before it (tools/checks/registry.spec.ts wants registry order), or the
 * row the map holds already with its port and prefix brought in line. Returns false when there is no map.
 */
function addToMap(tree, entry, options) {
  if (!tree.exists(README)) return false;
  const lines = tree.read(README, 'utf8').split('\n');
  const header = lines.findIndex((line) => MAP_HEADER.test(line));
  if (header < 0) return false;
  let end = header + 2;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  const nameOf = (line) => /^\[([^\]]+)\]/.exec(cellsOf(line)[0])?.[1] ?? cellsOf(line)[0];
  const port = String(entry.port);
  const prefix = entry.prefix ? `\`${entry.prefix}\`` : '–';
  const existing = lines.slice(header + 2, end).findIndex((line) => nameOf(line) === entry.name);
  if (existing >= 0) {
    const cells = cellsOf(lines[header + 2 + existing]);
    cells.splice(1, 3, options.spec ?? cells[1], port, prefix);
    if (options.description !== undefined) cells[4] = options.description;
    lines[header + 2 + existing] = rowOf(cells);
  } else {
    const order = parseRegistry(tree.read(REGISTRY_FILE, 'utf8')).services.map((s) => s.name);
    const before = (line) => order.includes(nameOf(line)) && order.indexOf(nameOf(line)) < order.indexOf(entry.name);
    let at = header + 2;
    for (let i = header + 2; i < end; i++) if (before(lines[i])) at = i + 1;
    const description = options.description ?? `to describe: what ${entry.name} is, in one line (the generator's --description)`;
    lines.splice(at, 0, rowOf([`[${entry.name}](apps/${entry.name}/README.md)`, options.spec ?? '–', port, prefix, description]));
  }
  tree.write(README, lines.join('\n'));
  return true;
}

/** A cell of the README's map holds one line without `|` (registry.spec.ts splits rows on it). */
function checkCells(options) {
  for (const key of ['spec', 'description']) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || !value.trim() || /[|\n]/.test(value))) {
      throw new Error(`--${key} is a cell of ${README}'s map: one line, not empty, without "|" (got ${JSON.stringify(value)})`);
    }
  }
}

async function serviceGenerator(tree, options) {
  const { name } = options;
  if (typeof name !== 'string' || !NAME.test(name)) throw new Error(`service name must be kebab-case, e.g. demo-api (got ${JSON.stringify(name)})`);
  if (tree.exists(`apps/${name}`)) throw new Error(`apps/${name} exists already: choose another name`);
  checkCells(options);
  const entry = register(tree, options);
  const substitutions = {
    ...names(name),
    name,
    port: entry.port,
    prefix: entry.prefix,
    database: entry.database,
    timestamp: String(Date.now()),
  };
  generateFiles(tree, path.join(__dirname, 'files'), `apps/${name}`, substitutions);
  if (entry.database) generateFiles(tree, path.join(__dirname, 'files-database'), `apps/${name}`, substitutions);
  const mapped = addToMap(tree, entry, options);
  renderDeployment(tree);
  return () => {
    logger.info(
      `${name}: port ${entry.port}, gateway prefix ${entry.prefix}, ${entry.database ? `database ${entry.database}` : 'no database'} (${REGISTRY_FILE}).\n` +
        (mapped
          ? options.description === undefined
            ? `${README}'s map has its row: replace its placeholder ("what it is") with one line on the app.\n`
            : ''
          : `${README} has no map (| app | spec | port | gateway prefix | what it is |): add the app's row by hand.\n`) +
        `Next: npx jest apps/${name} · npx nx serve ${name} · npm start (it starts ${name} with the others)`,
    );
  };
}

module.exports = serviceGenerator;
module.exports.default = serviceGenerator;
module.exports.defaultPrefix = defaultPrefix;
