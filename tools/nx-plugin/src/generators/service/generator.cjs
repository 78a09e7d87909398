'use strict';
// `npx nx g @platform/nx-plugin:service <name> [--port N] [--prefix /x] [--database x]`
//
// Writes the app skeleton of docs/lib-contracts.md under apps/<name> (files/ holds the templates),
// adds the app to the registry of services (services.json) unless the contract registers it already,
// and re-renders what deploy/generate.cjs derives from the registry (compose, Kubernetes, the
// database init script). The gateway's route table, the lint scopes and `npm start` read
// services.json themselves, so nothing else needs editing. Plain CommonJS: Nx loads a local
// generator without a TypeScript transpiler here.
const path = require('node:path');
const { generateFiles, logger, names } = require('@nx/devkit');
const { REGISTRY_FILE, formatRegistry, parseRegistry, registryProblems } = require('../../../../../deploy/apps.cjs');
const { render } = require('../../../../../deploy/generate.cjs');

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const CHOSEN = ['port', 'prefix', 'database'];

/** 'demo-api' → '/demo', 'logistics-hooks' → '/logistics', 'billing' → '/billing'. */
function defaultPrefix(name) {
  return `/${name.includes('-') ? name.slice(0, name.lastIndexOf('-')) : name}`;
}

/**
 * The registry entry of the new app: the one services.json already holds (options must agree with
 * it), or a new one from the options and defaults, written into services.json.
 */
function register(tree, options) {
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
    if (!registered.prefix || !registered.database) {
      throw new Error(`${REGISTRY_FILE} registers ${options.name} without a gateway prefix or database; this generator writes a service that has both`);
    }
    return registered;
  }
  const prefix = options.prefix ?? defaultPrefix(options.name);
  const entry = {
    name: options.name,
    port: options.port ?? Math.max(...registry.services.map((s) => s.port)) + 1,
    prefix,
    database: options.database ?? prefix.slice(1).replace(/-/g, '_'),
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

async function serviceGenerator(tree, options) {
  const { name } = options;
  if (typeof name !== 'string' || !NAME.test(name)) throw new Error(`service name must be kebab-case, e.g. demo-api (got ${JSON.stringify(name)})`);
  if (tree.exists(`apps/${name}`)) throw new Error(`apps/${name} exists already: choose another name`);
  const entry = register(tree, options);
  generateFiles(tree, path.join(__dirname, 'files'), `apps/${name}`, {
    ...names(name),
    name,
    port: entry.port,
    prefix: entry.prefix,
    database: entry.database,
    timestamp: String(Date.now()),
  });
  renderDeployment(tree);
  return () => {
    logger.info(
      `${name}: port ${entry.port}, gateway prefix ${entry.prefix}, database ${entry.database} (${REGISTRY_FILE}).\n` +
        `Next: npx jest apps/${name} · npx nx serve ${name} · npm start (it starts ${name} with the others)`,
    );
  };
}

module.exports = serviceGenerator;
module.exports.default = serviceGenerator;
module.exports.defaultPrefix = defaultPrefix;
