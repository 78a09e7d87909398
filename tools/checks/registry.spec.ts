// The registry of services (services.json) against what cannot be derived from it: the contract
// (ARCHITECTURE.md's table), each app's own ServiceDefinition and project tags. What is derived from
// it (gateway routes, lint scopes, npm start, compose, Kubernetes, the database init script) is
// checked where it is rendered or read (deploy/manifests.spec.ts, the gateway's route-table.spec.ts,
// below for lint).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadServiceDefinition } from '../dev/apps';

interface Entry {
  name: string;
  port: number;
  prefix: string | null;
  database: string | null;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { APPS, formatRegistry, registryProblems } = require('../../deploy/apps.cjs') as {
  APPS: Entry[];
  formatRegistry: (registry: unknown) => string;
  registryProblems: (services: unknown) => string[];
};

const root = path.resolve(__dirname, '../..');
const registryText = fs.readFileSync(path.join(root, 'services.json'), 'utf8');

/**
 * ARCHITECTURE.md lives in shared/ beside the checkout (CI: <clone>/../shared; a worktree under
 * wt/<name>: two levels up); ARCHITECTURE_MD names it elsewhere.
 */
function architecturePath(): string {
  const candidates = [process.env.ARCHITECTURE_MD, path.join(root, '../shared/ARCHITECTURE.md'), path.join(root, '../../shared/ARCHITECTURE.md')];
  const found = candidates.find((file): file is string => Boolean(file) && fs.existsSync(file!));
  if (!found) throw new Error(`ARCHITECTURE.md not found (looked at ${candidates.filter(Boolean).join(', ')}); set ARCHITECTURE_MD`);
  return found;
}

/** The rows of the table `| app (apps/…) | spec | port | gateway prefix | database |`. */
function contractTable(markdown: string): Entry[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => /^\|\s*app \(apps\/…\)\s*\|\s*spec\s*\|\s*port\s*\|\s*gateway prefix\s*\|\s*database\s*\|/.test(l));
  if (header < 0) throw new Error('ARCHITECTURE.md has no table "| app (apps/…) | spec | port | gateway prefix | database |"');
  const rows = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [name, , port, prefix, database] = line.split('|').slice(1, -1).map((c) => c.trim());
    const none = (cell: string) => (cell === '–' || cell === '-' ? null : cell);
    rows.push({ name, port: Number(port), prefix: none(prefix), database: none(database) });
  }
  return rows;
}

const appDirs = fs
  .readdirSync(path.join(root, 'apps'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, 'apps', e.name, 'project.json')))
  .map((e) => e.name);

describe('services.json', () => {
  it('is valid and written one line per service, as the generator writes it', () => {
    expect(registryProblems(APPS)).toEqual([]);
    expect(formatRegistry(JSON.parse(registryText))).toBe(registryText);
  });

  it('says what to fix when an entry is wrong', () => {
    const problems = registryProblems([
      ...APPS,
      { name: 'Demo_API', port: 3004, prefix: 'demo', database: 'auth', hpa: 'yes' },
    ]);
    expect(problems).toEqual([
      'Demo_API: name must be kebab-case, e.g. "demo-api"',
      'Demo_API: prefix must be null (the gateway) or like "/demo"',
      'Demo_API: hpa must be true (stateless, autoscaled) or false',
      'Demo_API: port 3004 is already taken by auth-api',
      'Demo_API: database auth is already taken by auth-api',
    ]);
  });

  it("holds exactly ARCHITECTURE.md's table of apps, ports, prefixes and databases", () => {
    const contract = contractTable(fs.readFileSync(architecturePath(), 'utf8'));
    expect(contract.length).toBeGreaterThan(0);
    expect(APPS.map(({ name, port, prefix, database }) => ({ name, port, prefix, database }))).toEqual(contract);
  });
});

describe.each(appDirs)('apps/%s', (name) => {
  const entry = APPS.find((a) => a.name === name);

  it('is registered', () => {
    expect(entry).toBeDefined();
  });

  it("exports the ServiceDefinition npm start loads, with the registry's name, port and schema", () => {
    const def = loadServiceDefinition(name);
    expect(def).toBeDefined();
    expect({ name: def!.name, port: def!.port }).toEqual({ name, port: entry!.port });
    // An app without a database of its own yet (transcribe-api keeps its jobs in Redis) sets no schema.
    if (def!.schema !== undefined) expect(def!.schema).toBe(entry!.database);
  });

  it('is tagged with its own scope', () => {
    const project = JSON.parse(fs.readFileSync(path.join(root, 'apps', name, 'project.json'), 'utf8')) as { name: string; tags: string[] };
    expect(project.name).toBe(name);
    expect([...project.tags].sort()).toEqual([`scope:${name}`, 'type:app']);
  });
});

describe('lint constraints', () => {
  it('give every registered service its scope rule, in production code and tests', () => {
    const script = `import('./eslint.config.mjs').then(({ default: configs }) => {
      const rules = configs.flatMap((c) => c.rules?.['@nx/enforce-module-boundaries'] ? [c.rules['@nx/enforce-module-boundaries'][1]] : []);
      console.log(JSON.stringify(rules.map((r) => r.depConstraints.filter((d) => d.sourceTag.startsWith('scope:')))));
    })`;
    const perBlock = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })) as { sourceTag: string; onlyDependOnLibsWithTags: string[] }[][];
    expect(perBlock).toHaveLength(2);
    for (const constraints of perBlock) {
      for (const { name } of APPS) {
        expect(constraints).toContainEqual({ sourceTag: `scope:${name}`, onlyDependOnLibsWithTags: [`scope:${name}`, 'scope:shared'] });
      }
    }
  });
});
