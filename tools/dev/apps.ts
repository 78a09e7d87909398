// The apps `npm start` runs: every service of the registry (services.json) whose code is there,
// each loaded by name from apps/<name>/src/service (dist/out/apps/… once built).
import fs from 'node:fs';
import path from 'node:path';
import type { ServiceDefinition } from '@platform/platform';
import { REGISTERED_SERVICES } from '@platform/registry';

const APPS_DIR = path.resolve(__dirname, '../../apps');

const isDefinitionOf =
  (name: string) =>
  (value: unknown): value is ServiceDefinition<any> =>
    typeof value === 'object' && value !== null && (value as ServiceDefinition).name === name && typeof (value as ServiceDefinition).module === 'function';

/**
 * The ServiceDefinition that apps/<name>/src/service exports (the one whose `name` is the app's), or
 * undefined when the app does not exist (yet). Throws when the file exists but exports none.
 */
export function loadServiceDefinition(name: string, appsDir = APPS_DIR): ServiceDefinition<any> | undefined {
  const file = path.join(appsDir, name, 'src', 'service');
  if (!['.js', '.ts'].some((ext) => fs.existsSync(`${file}${ext}`))) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = require(file) as Record<string, unknown>;
  const def = Object.values(exported).find(isDefinitionOf(name));
  if (!def) throw new Error(`apps/${name}/src/service.ts exports no ServiceDefinition with name '${name}' (services.json lists the app)`);
  return def;
}

/** The definitions of every registered app that exists, in registry order. */
export function registeredApps(appsDir = APPS_DIR): ServiceDefinition<any>[] {
  return REGISTERED_SERVICES.flatMap(({ name }) => loadServiceDefinition(name, appsDir) ?? []);
}
