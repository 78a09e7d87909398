// Builds the workspace with SWC: every app, lib and tool source file (tests excluded) is compiled to
// dist/out/<same path>.js with the @platform/* aliases rewritten to relative paths, then each app
// gets its entry dist/apps/<app>/main.js and each tool dist/tools/<tool>.js.
// `node tools/build.mjs` builds everything; `node tools/build.mjs auth-api gateway` the same files
// (libs are shared, so the whole tree compiles in about a second either way).
// `--if-stale` first compares the inputs (count and newest modification time) with those of the last
// complete build (dist/.build-stamp) and does nothing when they are the same: what the tests that run
// built apps call, since `npm test` has just built everything.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { swcOptions, root } = require('../swc.config.cjs');

const out = path.join(root, 'dist');
const isSource = (f) =>
  f.endsWith('.ts') && !f.endsWith('.d.ts') && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(f);

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'test' || entry.name === '__fixtures__') continue;
      yield* walk(full);
    } else if (isSource(full)) yield full;
  }
}

const sourceDirs = [
  ...['apps', 'libs'].flatMap((d) =>
    fs.existsSync(path.join(root, d))
      ? fs.readdirSync(path.join(root, d)).flatMap((n) => [path.join(root, d, n, 'src'), path.join(root, d, n, 'bench')])
      : [],
  ),
  path.join(root, 'tools'),
];

/**
 * Writes a file only when its content changed, and then atomically (a temporary file renamed over
 * it): tests start built apps from dist/ while another test file may be building, and a process
 * must never load a half-written module.
 */
async function writeIfChanged(target, content) {
  const current = await fs.promises.readFile(target).catch(() => null);
  if (current && current.equals(Buffer.from(content))) return;
  const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await fs.promises.writeFile(temporary, content);
  await fs.promises.rename(temporary, target);
}

const started = Date.now();
const files = sourceDirs.flatMap((d) => [...walk(d)]);

/** Every file the build reads: the sources, the assets, the registry and the compiler settings. */
function inputsStamp() {
  const assets = sourceDirs.map((d) => path.join(d, 'assets')).filter((d) => fs.existsSync(d));
  const inputs = [
    ...files,
    ...assets.flatMap((d) => fs.readdirSync(d, { recursive: true }).map((f) => path.join(d, String(f)))),
    ...['services.json', 'swc.config.cjs', 'tsconfig.base.json', 'tools/build.mjs'].map((f) => path.join(root, f)),
  ];
  let newest = 0;
  for (const f of inputs) newest = Math.max(newest, fs.statSync(f).mtimeMs);
  return `${inputs.length} ${newest}`;
}
const stampFile = path.join(out, '.build-stamp');
const stamp = inputsStamp();
if (process.argv.includes('--if-stale') && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) {
  console.log('build: dist/ is up to date');
  process.exit(0);
}
const swc = require('@swc/core');
const options = swcOptions({ sourceMaps: true });
await Promise.all(
  files.map(async (file) => {
    const rel = path.relative(root, file);
    const target = path.join(out, 'out', rel.replace(/\.ts$/, '.js'));
    const { code, map } = await swc.transformFile(file, {
      ...options,
      swcrc: false,
      filename: file,
      outputPath: target,
      sourceFileName: path.relative(path.dirname(target), file),
    });
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await writeIfChanged(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    if (map) await writeIfChanged(`${target}.map`, map);
  }),
);

// The registry of services, read at run time by the gateway's route table and tools/start.ts.
await fs.promises.mkdir(path.join(out, 'out'), { recursive: true });
await writeIfChanged(path.join(out, 'out', 'services.json'), fs.readFileSync(path.join(root, 'services.json')));

// Static assets that ship with an app (templates, wait pages, YAML examples).
for (const d of sourceDirs) {
  const assets = path.join(d, 'assets');
  if (fs.existsSync(assets)) {
    fs.cpSync(assets, path.join(out, 'out', path.relative(root, assets)), { recursive: true });
  }
}

const entry = (from, to) => `'use strict';\nrequire(${JSON.stringify(path.relative(from, to))});\n`;
const apps = fs.existsSync(path.join(root, 'apps')) ? fs.readdirSync(path.join(root, 'apps')) : [];
for (const app of apps) {
  const main = path.join(out, 'out', 'apps', app, 'src', 'main.js');
  if (!fs.existsSync(main)) continue;
  const dir = path.join(out, 'apps', app);
  fs.mkdirSync(dir, { recursive: true });
  await writeIfChanged(path.join(dir, 'main.js'), entry(dir, main).replace('require("', 'require("./'));
}
for (const tool of fs.readdirSync(path.join(root, 'tools')).filter((f) => isSource(path.join(root, 'tools', f)))) {
  const dir = path.join(out, 'tools');
  fs.mkdirSync(dir, { recursive: true });
  const compiled = path.join(out, 'out', 'tools', tool.replace(/\.ts$/, '.js'));
  await writeIfChanged(path.join(dir, tool.replace(/\.ts$/, '.js')), entry(dir, compiled).replace('require("', 'require("./'));
}
fs.writeFileSync(stampFile, stamp);
console.log(`build: ${files.length} files compiled to dist/ in ${Date.now() - started} ms`);
