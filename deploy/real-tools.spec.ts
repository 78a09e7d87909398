// The deployment files read by the tools that deploy them: every Kustomize overlay built by
// `kubectl kustomize`, each object of the output validated against the Kubernetes API schemas
// (kubernetes-models), and docker/compose.yml read by `docker-compose config` (Debian's package;
// also `docker compose config` where Compose v2 is installed). A missing tool skips its tests with a
// line on stderr, or fails them under CI (CI set, or REQUIRE_SERVICES=1): .ci/run installs
// docker-compose; kubectl is the machine's (/usr/bin/kubectl).
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { externalTool, findProgram } from '@platform/testing';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..');
const overlaysDir = path.join(__dirname, 'k8s', 'overlays');
const compose = path.join(root, 'docker', 'compose.yml');

type Manifest = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown }; [field: string]: unknown };
type ModelClass = { new (data: object): { validate(): void }; apiVersion: string; kind: string };

/** kubernetes-models' class of an apiVersion and kind (`v1` is the core group), or undefined. */
function modelOf(apiVersion: string, kind: string): ModelClass | undefined {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  let module: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    module = require(`kubernetes-models/${apiVersion}/${kind}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const model = module[kind] as ModelClass | undefined;
  return model && model.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

/**
 * The object as the API server decodes it where it differs from the schema's letter: kustomize
 * folds long base64 values (Secret data, ConfigMap binaryData) over lines, and the server's base64
 * decoding (Go's encoding/base64) skips line breaks, which the schema's `byte` format does not.
 */
function asDecoded(object: Manifest): Manifest {
  const field = object.kind === 'Secret' ? 'data' : object.kind === 'ConfigMap' ? 'binaryData' : undefined;
  const values = field && object[field];
  if (!values || typeof values !== 'object') return object;
  const unfolded = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]));
  return { ...object, [field!]: unfolded };
}

/** What is wrong with one object against the Kubernetes API schemas (nothing: []). */
function schemaProblems(object: Manifest): string[] {
  const { apiVersion, kind } = object;
  const name = `${String(kind)} ${String(object.metadata?.namespace ?? '')}/${String(object.metadata?.name)}`;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return [`${name}: no apiVersion or kind`];
  const Model = modelOf(apiVersion, kind);
  if (!Model) return [`${name}: ${apiVersion} ${kind} is not a kind of the Kubernetes API (kubernetes-models has no schema for it)`];
  try {
    new Model(asDecoded(object)).validate();
    return [];
  } catch (error) {
    return [`${name}: ${(error as Error).message}`];
  }
}

describe('schemaProblems', () => {
  it('accepts a valid object and names the schema errors and unknown kinds', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'a', annotations: { 'x/y': 'off' } },
      spec: { selector: { matchLabels: { a: 'a' } }, template: { spec: { containers: [{ name: 'a', image: 'a' }] } } },
    };
    expect(schemaProblems(deployment)).toEqual([]);
    expect(schemaProblems({ ...deployment, metadata: { name: 'a', annotations: { 'x/y': false } } } as Manifest)).toEqual([
      expect.stringMatching(/^Deployment \/a: .*annotations.* must be string/),
    ]);
    expect(schemaProblems({ ...deployment, spec: { ...deployment.spec, replicas: '2' } } as Manifest)).toEqual([
      expect.stringContaining('replicas must be integer'),
    ]);
    expect(schemaProblems({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
      'Widget /w: example.com/v1 Widget is not a kind of the Kubernetes API (kubernetes-models has no schema for it)',
    ]);
    expect(schemaProblems({ apiVersion: 'apps/v1', kind: 'index', metadata: { name: 'i' } })).toEqual([expect.stringContaining('is not a kind')]);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { A: 'cG9z\ndGdy\n', B: 'YQ==' } };
    expect(schemaProblems(secret)).toEqual([]);
    expect(schemaProblems({ ...secret, data: { A: 'not base64!' } })).toEqual([expect.stringContaining('must match format "byte"')]);
    expect(schemaProblems({ kind: 'Service' })).toEqual(['Service /undefined: no apiVersion or kind']);
  });
});

describe('kubectl kustomize', () => {
  const kubectl = externalTool('kubectl', { install: 'the machine provides /usr/bin/kubectl', what: 'building the Kustomize overlays' });
  if (!kubectl) return;
  const overlays = fs.readdirSync(overlaysDir).filter((d) => fs.statSync(path.join(overlaysDir, d)).isDirectory());

  it('finds the overlays', () => {
    expect(overlays.sort()).toEqual(expect.arrayContaining(['dev', 'prod']));
  });

  it.each(overlays)('builds the %s overlay, every object valid against the Kubernetes API schemas', async (overlay) => {
    const { stdout } = await run(kubectl, ['kustomize', path.join(overlaysDir, overlay)], { maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
    const docs = parseAllDocuments(stdout);
    const errors = docs.flatMap((d) => d.errors.map((e) => e.message));
    expect(errors).toEqual([]);
    const objects = docs.map((d) => d.toJS() as Manifest).filter((o) => o !== null);
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
    // The overlay's namespace reaches every object, and every app has its Deployment.
    const [kustomization] = parseAllDocuments(fs.readFileSync(path.join(overlaysDir, overlay, 'kustomization.yaml'), 'utf8')).map((d) => d.toJS());
    expect(objects.filter((o) => o.metadata?.namespace !== kustomization.namespace)).toEqual([]);
    const base = parseAllDocuments(fs.readFileSync(path.join(__dirname, 'k8s', 'base', 'kustomization.yaml'), 'utf8'))[0].toJS();
    const deployments = new Set(objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata?.name));
    expect(base.resources.filter((app: string) => !deployments.has(app))).toEqual([]);
  });
});

describe('docker-compose config', () => {
  const dockerCompose = externalTool('docker-compose', { install: 'apt-get install -y docker-compose (.ci/run does)', what: 'reading docker/compose.yml' });
  if (!dockerCompose) return;

  it('reads docker/compose.yml without an error (docker-compose config -q)', async () => {
    const result = await run(dockerCompose, ['-f', compose, 'config', '-q'], { cwd: root, timeout: 30_000 }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result).toEqual({ code: 0, stderr: '' });
  });
});

describe('docker compose config (Compose v2, where installed)', () => {
  // Debian's packages have no Compose v2: checked where a machine has it, skipped (saying so) elsewhere.
  const docker = findProgram('docker');
  const v2 = docker !== undefined && spawnSync(docker, ['compose', 'version'], { timeout: 10_000 }).status === 0;
  if (!v2) process.stderr.write('[deploy] docker compose (v2) not installed: docker/compose.yml is read by docker-compose only\n');

  (v2 ? it : it.skip)('reads docker/compose.yml without an error (docker compose config -q)', async () => {
    const result = await run(docker!, ['compose', '-f', compose, 'config', '-q'], { cwd: root, timeout: 30_000 }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result).toEqual({ code: 0, stderr: '' });
  });
});
