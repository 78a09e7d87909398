// The registry of services (services.json) against what the repository itself documents and builds:
// the README's map, each app's ServiceDefinition, project tags and source (a database needs
// DatabaseModule, rbac needs @platform/containers), each app's README on replicas, and the lint
// scopes. What is rendered from it (compose, Kubernetes, the database init script) is checked in
// deploy/manifests.spec.ts; the gateway's routes in libs/registry and the gateway's own specs.
// The contract (ARCHITECTURE.md's table) lives outside the repository: it is compared only where
// ARCHITECTURE_MD names it (.ci/run sets it when shared/ sits beside the clone).
import { REGISTERED_SERVICES, type RegisteredService } from '@platform/registry';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadServiceDefinition } from '../dev/apps';
import { importsOf, isTestFile, root, sourceFiles } from './source-imports';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { formatRegistry, registryProblems } = require('../../deploy/apps.cjs') as {
  formatRegistry: (registry: unknown) => string;
  registryProblems: (services: unknown) => string[];
};

const registryText = fs.readFileSync(path.join(root, 'services.json'), 'utf8');
const APPS = REGISTERED_SERVICES;

/** name, port, prefix, database: the columns a table of apps gives. */
type Row = Pick<RegisteredService, 'name' | 'port' | 'prefix' | 'database'>;
type RouteRow = Pick<RegisteredService, 'name' | 'port' | 'prefix'>;

const none = (cell: string): string | null => (cell === '–' || cell === '-' ? null : cell);
const cellsOf = (line: string): string[] => line.split('|').slice(1, -1).map((c) => c.trim());

/** The rows of every markdown table whose header matches `header`, table by table. */
function tables(markdown: string, header: RegExp): string[][][] {
  const lines = markdown.split('\n');
  const found: string[][][] = [];
  lines.forEach((line, i) => {
    if (!header.test(line)) return;
    const rows: string[][] = [];
    for (const row of lines.slice(i + 2)) {
      if (!row.startsWith('|')) break;
      rows.push(cellsOf(row));
    }
    found.push(rows);
  });
  return found;
}

/**
 * ARCHITECTURE.md's tables `| app (apps/…) | spec | port | gateway prefix | database |`: the first
 * holds the apps that landed, a later one the apps being built (the registry may hold those or not).
 */
function contractTables(markdown: string): { landed: Row[]; planned: Row[] } {
  const found = tables(markdown, /^\|\s*app \(apps\/…\)\s*\|\s*spec\s*\|\s*port\s*\|\s*gateway prefix\s*\|\s*database\s*\|/).map((rows) =>
    rows.map(([name, , port, prefix, database]) => ({ name, port: Number(port), prefix: none(prefix), database: none(database) })),
  );
  if (!found.length) throw new Error('ARCHITECTURE.md has no table "| app (apps/…) | spec | port | gateway prefix | database |"');
  return { landed: found[0], planned: found.slice(1).flat() };
}

/** The README's map `| app | spec | port | gateway prefix | what it is |`: `[name](apps/name/README.md)`, port, `` `/prefix` `` or –. */
function readmeMap(markdown: string): (RouteRow & { link: string })[] {
  const [rows] = tables(markdown, /^\|\s*app\s*\|\s*spec\s*\|\s*port\s*\|\s*gateway prefix\s*\|/);
  if (!rows) throw new Error('README.md has no map "| app | spec | port | gateway prefix | what it is |"');
  return rows.map(([app, , port, prefix]) => {
    const link = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(app);
    return { name: link?.[1] ?? app, link: link?.[2] ?? '', port: Number(port), prefix: none(prefix.replace(/`/g, '')) };
  });
}

const appDirs = fs
  .readdirSync(path.join(root, 'apps'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, 'apps', e.name, 'project.json')))
  .map((e) => e.name);

/** The imports of an app's production code (apps/<app>/src without its tests). */
function productionImports(app: string) {
  return sourceFiles(path.join(root, 'apps', app, 'src'))
    .filter((file) => !isTestFile(file))
    .flatMap((file) => importsOf(file).map((ref) => ({ ...ref, file: path.relative(root, file) })));
}

/**
 * Replicas, as the READMEs speak of them. An app built for several replicas says how they share
 * state ("every replica", "any replica answers", "several replicas", "two replicas on one
 * database"); an app that must run alone says so in one of the phrases of SINGLE. Precise on
 * purpose: "a single replica" alone (auth-api: counters in memory "per process (development, a
 * single replica)") or "one replica per account" (a lease) is no claim about the deployment.
 *   hpa: true   the README never says the app must run alone;
 *   hpa: false  the README says why it runs alone (a SINGLE phrase) and describes no replicas (MULTI).
 * A README that does not speak of replicas at all is taken for a stateless app (the registry's default).
 */
const SINGLE = /\b(?:one|a single) replica only\b|\bonly (?:one|a single) replica\b|\bno HPA\b|\bnot autoscaled\b|\bmust not be scaled\b|\bnever (?:more than one|several) replicas\b/i;
const MULTI = /\b(?:several|two|multiple|many|all) replicas\b|\b(?:every|any|each|another) replica\b|\breplicas share\b/i;

/** The words around the first match of `pattern` in `text` (for the message), or undefined. */
function excerpt(text: string, pattern: RegExp): string | undefined {
  const flat = text.replace(/\s+/g, ' ');
  const match = pattern.exec(flat);
  return match ? `"…${flat.slice(Math.max(0, match.index - 60), match.index + match[0].length + 60)}…"` : undefined;
}

describe('services.json', () => {
  it('is valid and written one line per service, as the generator writes it', () => {
    expect(registryProblems(APPS)).toEqual([]);
    expect(formatRegistry(JSON.parse(registryText))).toBe(registryText);
  });

  it('says what to fix when an entry is wrong', () => {
    const problems = registryProblems([...APPS, { name: 'Demo_API', port: 3004, prefix: 'demo', database: 'auth', hpa: 'yes' }]);
    expect(problems).toEqual([
      'Demo_API: name must be kebab-case, e.g. "demo-api"',
      'Demo_API: prefix must be null (the gateway) or like "/demo"',
      'Demo_API: hpa must be true (stateless, autoscaled) or false',
      'Demo_API: port 3004 is already taken by auth-api',
      'Demo_API: database auth is already taken by auth-api',
    ]);
  });

  it("agrees with the README's map: every app there, with its port and gateway prefix", () => {
    const map = readmeMap(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    // Registered apps without code yet (the contract's planned ones) need no row.
    const built = APPS.filter((a) => appDirs.includes(a.name));
    expect(map.map(({ name, port, prefix }) => ({ name, port, prefix }))).toEqual(built.map(({ name, port, prefix }) => ({ name, port, prefix })));
    for (const row of map) expect(row.link).toBe(`apps/${row.name}/README.md`);
  });
});

const contractFile = process.env.ARCHITECTURE_MD;
if (!contractFile) {
  console.info('registry.spec: ARCHITECTURE_MD is not set: services.json is not compared with the contract (ARCHITECTURE.md) in this run');
}

describe('services.json against the contract (ARCHITECTURE_MD)', () => {
  (contractFile ? it : it.skip)("holds every landed app of ARCHITECTURE.md's table exactly as written, and otherwise only apps being built", () => {
    if (!fs.existsSync(contractFile!)) throw new Error(`ARCHITECTURE_MD=${contractFile} does not exist: point it at shared/ARCHITECTURE.md or unset it`);
    const { landed, planned } = contractTables(fs.readFileSync(contractFile!, 'utf8'));
    expect(landed.length).toBeGreaterThan(0);
    const rows = APPS.map(({ name, port, prefix, database }) => ({ name, port, prefix, database }));
    const landedNames = landed.map((row) => row.name);
    expect(rows.filter((row) => landedNames.includes(row.name))).toEqual(landed);
    for (const row of rows.filter((r) => !landedNames.includes(r.name))) {
      // An app the contract does not list yet: its row in ARCHITECTURE.md's "being built" table comes first.
      expect(planned).toContainEqual(row);
    }
  });
});

describe.each(appDirs)('apps/%s', (name) => {
  const entry = APPS.find((a) => a.name === name);
  const imports = productionImports(name);
  const importing = (pkg: string, what?: string) =>
    imports.filter((ref) => ref.specifier === pkg && (!what || ref.names.includes(what))).map((ref) => ref.file);

  it('is registered', () => {
    expect(entry).toBeDefined();
  });

  it("exports the ServiceDefinition npm start loads, with the registry's name, port and schema", () => {
    const def = loadServiceDefinition(name);
    expect(def).toBeDefined();
    expect({ name: def!.name, port: def!.port }).toEqual({ name, port: entry!.port });
    // The schema may also come from DatabaseModule.forRoot({ schema }); where service.ts names one, it is the registry's database.
    if (def!.schema !== undefined) expect(def!.schema).toBe(entry!.database);
  });

  it('is tagged with its own scope', () => {
    const project = JSON.parse(fs.readFileSync(path.join(root, 'apps', name, 'project.json'), 'utf8')) as { name: string; tags: string[] };
    expect(project.name).toBe(name);
    expect([...project.tags].sort()).toEqual([`scope:${name}`, 'type:app']);
  });

  it('uses DatabaseModule (from @platform/database) exactly when the registry gives it a database', () => {
    const users = importing('@platform/database', 'DatabaseModule');
    const problems: string[] = [];
    if (entry!.database !== null && !users.length) {
      problems.push(
        `services.json gives ${name} the database "${entry!.database}" (a schema, a migration Job), but no file of apps/${name}/src ` +
          'imports DatabaseModule from @platform/database: add DatabaseModule.forRoot(...) to its root module, or set "database": null',
      );
    }
    if (entry!.database === null && users.length) {
      problems.push(`${users.join(', ')} imports DatabaseModule, but services.json gives ${name} no database: set "database" in its line and run node deploy/generate.cjs`);
    }
    expect(problems).toEqual([]);
  });

  it('is given Kubernetes RBAC (rbac) only when it drives workloads through @platform/containers', () => {
    const problems: string[] = [];
    if (entry!.rbac !== undefined && !importing('@platform/containers').length) {
      problems.push(
        `services.json gives ${name} "rbac" (a Role to drive workloads through the Kubernetes API), but no file of apps/${name}/src ` +
          'imports @platform/containers: drop "rbac" from its line and run node deploy/generate.cjs',
      );
    }
    expect(problems).toEqual([]);
  });

  it('is autoscaled (hpa) or runs alone as its README says', () => {
    const readme = fs.readFileSync(path.join(root, 'apps', name, 'README.md'), 'utf8');
    const problems: string[] = [];
    const alone = excerpt(readme, SINGLE);
    const shared = excerpt(readme, MULTI);
    if (entry!.hpa && alone) problems.push(`services.json autoscales ${name} ("hpa": true), but its README says it runs alone: ${alone}`);
    if (!entry!.hpa && shared) problems.push(`services.json runs ${name} as one replica ("hpa": false), but its README describes several: ${shared}`);
    if (!entry!.hpa && !alone) problems.push(`services.json runs ${name} as one replica ("hpa": false): its README must say why (e.g. "one replica only: …")`);
    expect(problems).toEqual([]);
  });
});

describe('the replica phrases of the hpa check', () => {
  it.each([
    ['Several replicas are safe (HPA on CPU): the state is in the database.', false, true],
    ['`GET /api/progress/{id}` answers from any replica', false, true],
    ['two replicas on one database and Redis', false, true],
    ['Runs as one replica only: crawl progress lives in memory.', true, false],
    ['Stateful: no HPA, a single Deployment replica.', true, false],
    ['counted in memory per process (development, a single replica)', false, false],
    ['one replica per account refreshes its token', false, false],
  ])('%j → single %s, several %s', (text, single, multi) => {
    expect([SINGLE.test(text), MULTI.test(text)]).toEqual([single, multi]);
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
