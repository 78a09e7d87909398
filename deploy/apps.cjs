'use strict';
// Reads the registry of services, services.json at the root (docs/lib-contracts.md, "Adding a
// service"): one line per app with its name, port, gateway prefix, database and deployment traits.
// deploy/generate.cjs renders the Kustomize manifests, docker/compose.yml and the database init
// script from it; the gateway's route table, `npm start` and the bench read the same file through
// @platform/registry (libs/registry), and the lint scopes read it directly.
//
//   prefix:   path prefix on the gateway (null: the gateway itself).
//   database: the app owns a database (and a migration Job); also its schema on the embedded instance.
//   hpa:      stateless API, scaled by CPU (several replicas share nothing but the database,
//             broker and Redis); false: one replica, and the app's README says why
//             (tools/checks/registry.spec.ts holds the two together).
//   rbac:     the app drives workloads through the Kubernetes API (@platform/containers, which
//             its source must import: tools/checks/registry.spec.ts): true (any Deployment of its
//             namespace) or { deployments: [names], statefulsets: [names], logs?: true } (a Role
//             limited to scaling those, and with logs: true to reading their pods' logs).
//   configMaps: { <ConfigMap name>: <mount path> }, files the operator provides (read-only).
//   listeners: { <name>: { port, publicPort } }, TCP listeners besides HTTP (email-api's inbound
//             SMTP): a container port and a port of the app's Service, a LoadBalancer Service
//             `<app>-<name>` answering on publicPort, and in compose the host port `port` (or the
//             variable <APP>_<NAME>_PORT; 25 needs root and an idle port on a developer's machine).
//   env:      extra environment of the app's Deployment and compose service.
//   worker:   a second Deployment of the same image with extra environment.
const fs = require('node:fs');
const path = require('node:path');

const REGISTRY_FILE = 'services.json';
const registryPath = path.resolve(__dirname, '..', REGISTRY_FILE);

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const PREFIX = /^\/[a-z][a-z0-9-]*$/;
const DATABASE = /^[a-z][a-z0-9_]*$/;

/** Every problem of a list of registry entries, as sentences that say what to fix (empty: none). */
function registryProblems(services) {
  const problems = [];
  if (!Array.isArray(services)) return [`${REGISTRY_FILE} must hold {"services": [...]}`];
  const seen = { name: new Map(), port: new Map(), prefix: new Map(), database: new Map() };
  for (const s of services) {
    const who = s && typeof s.name === 'string' ? s.name : JSON.stringify(s);
    if (!s || typeof s.name !== 'string' || !NAME.test(s.name)) problems.push(`${who}: name must be kebab-case, e.g. "demo-api"`);
    if (!Number.isInteger(s?.port) || s.port < 1024 || s.port > 65535) problems.push(`${who}: port must be an integer from 1024 to 65535`);
    if (s?.prefix !== null && !PREFIX.test(String(s?.prefix))) problems.push(`${who}: prefix must be null (the gateway) or like "/demo"`);
    if (s?.database !== null && !DATABASE.test(String(s?.database))) problems.push(`${who}: database must be null or a lower-case identifier like "demo"`);
    if (typeof s?.hpa !== 'boolean') problems.push(`${who}: hpa must be true (stateless, autoscaled) or false`);
    for (const key of Object.keys(seen)) {
      const value = s?.[key];
      if (value === null || value === undefined) continue;
      if (seen[key].has(value)) problems.push(`${who}: ${key} ${value} is already taken by ${seen[key].get(value)}`);
      else seen[key].set(value, who);
    }
  }
  return problems;
}

/** Parses the text of services.json and checks it; throws with every problem listed. */
function parseRegistry(text) {
  const registry = JSON.parse(text);
  const problems = registryProblems(registry.services);
  if (problems.length) throw new Error(`${REGISTRY_FILE} is invalid:\n  ${problems.join('\n  ')}`);
  return registry;
}

/** services.json as committed: one line per service, so that adding one is a one-line diff. */
function formatRegistry(registry) {
  const line = (value) => JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ');
  const { services, ...rest } = registry;
  const head = Object.entries(rest).map(([key, value]) => `  ${JSON.stringify(key)}: ${line(value)},\n`);
  return `{\n${head.join('')}  "services": [\n${services.map((s) => `    ${line(s)}`).join(',\n')}\n  ]\n}\n`;
}

const APPS = parseRegistry(fs.readFileSync(registryPath, 'utf8')).services;

const upperSnake = (name) => name.toUpperCase().replace(/-/g, '_');

module.exports = { APPS, REGISTRY_FILE, registryProblems, parseRegistry, formatRegistry, upperSnake };
