// Writes a production package.json and package-lock.json for one built app, holding only the
// packages that app actually loads — what docker/Dockerfile installs with `npm ci --omit=dev`.
//
//   node tools/prune-package.mjs <app>      (after `node tools/build.mjs`)
//
// 1. Starting at dist/apps/<app>/main.js, follow every require("…") (SWC also compiles dynamic
//    import() to require) through the compiled files under dist/; each bare specifier names a
//    package, kept when it is one of the root package.json's dependencies.
// 2. Add the peer dependencies of kept packages that the root also depends on: libraries load
//    some packages themselves (TypeORM loads `pg`, Nest loads `@nestjs/platform-express`), which
//    step 1 cannot see in our code.
// 3. Cut the root package-lock.json down to what those packages reach (node's nested node_modules
//    lookup over each entry's dependencies, optional and peer dependencies). The result agrees with
//    the pruned package.json, so `npm ci` installs exactly the versions the repository tested —
//    no re-resolution inside the image.
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const builtins = new Set(builtinModules);

/** Package name of a bare specifier ('@scope/name/sub' → '@scope/name'), or null for a relative path or builtin. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? null : name;
}

/** Every package required from the compiled files reachable from `entry`. */
export function requiredPackages(entry) {
  const seen = new Set();
  const packages = new Set();
  const queue = [path.resolve(entry)];
  const pattern = /\brequire\(\s*(["'])([^"'\n]+)\1\s*\)/g;
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = fs.readFileSync(file, 'utf8');
    for (const [, , specifier] of code.matchAll(pattern)) {
      const pkg = packageOf(specifier);
      if (pkg) {
        packages.add(pkg);
        continue;
      }
      if (specifier.startsWith('node:')) continue;
      const target = resolveLocal(path.dirname(file), specifier);
      if (target) queue.push(target);
    }
  }
  return { packages, files: seen };
}

function resolveLocal(dir, specifier) {
  const base = path.resolve(dir, specifier);
  for (const candidate of [base, `${base}.js`, path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile() && candidate.endsWith('.js')) return candidate;
  }
  return null; // JSON and other assets are copied with dist/, not packages
}

/** The packages to install: required ones plus root-level peers that libraries load themselves. */
export function selectDependencies(required, rootDependencies, readManifest) {
  const keep = new Set([...required].filter((p) => p in rootDependencies));
  let grew = true;
  while (grew) {
    grew = false;
    for (const pkg of [...keep]) {
      const manifest = readManifest(pkg);
      for (const peer of Object.keys(manifest?.peerDependencies ?? {})) {
        if (peer in rootDependencies && !keep.has(peer)) {
          keep.add(peer);
          grew = true;
        }
      }
    }
  }
  return Object.fromEntries([...keep].sort().map((p) => [p, rootDependencies[p]]));
}

/** The lockfile entries reachable from `dependencies`, with the root entry rewritten. */
export function pruneLock(lock, name, dependencies) {
  const packages = lock.packages;
  const keep = new Map();
  const resolve = (from, dep) => {
    // node's lookup: <from>/node_modules/<dep>, then each ancestor's node_modules, then the top.
    let dir = from;
    for (;;) {
      const candidate = dir ? `${dir}/node_modules/${dep}` : `node_modules/${dep}`;
      if (packages[candidate]) return candidate;
      if (!dir) return null;
      const idx = dir.lastIndexOf('/node_modules/');
      dir = idx === -1 ? '' : dir.slice(0, idx);
    }
  };
  const visit = (key) => {
    if (keep.has(key)) return;
    const entry = packages[key];
    keep.set(key, entry);
    const deps = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const dep of Object.keys(deps)) {
      const target = resolve(key, dep);
      if (target) visit(target);
      else if (!entry.peerDependenciesMeta?.[dep]?.optional && !(dep in (entry.optionalDependencies ?? {}))) {
        throw new Error(`package-lock.json: ${key} needs ${dep}, which the lockfile does not hold`);
      }
    }
  };
  for (const dep of Object.keys(dependencies)) {
    const key = `node_modules/${dep}`;
    if (!packages[key]) throw new Error(`package-lock.json has no ${key}; run npm install at the root`);
    visit(key);
  }
  const pruned = { '': { name, version: lock.packages[''].version, dependencies } };
  for (const key of [...keep.keys()].sort()) pruned[key] = keep.get(key);
  return { name, version: lock.version, lockfileVersion: lock.lockfileVersion, requires: true, packages: pruned };
}

function main() {
  const app = process.argv[2];
  if (!app) {
    console.error('usage: node tools/prune-package.mjs <app>');
    process.exit(2);
  }
  const entry = path.join(root, 'dist', 'apps', app, 'main.js');
  if (!fs.existsSync(entry)) {
    console.error(`prune-package: ${path.relative(root, entry)} does not exist; run node tools/build.mjs ${app} first`);
    process.exit(1);
  }
  const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const { packages, files } = requiredPackages(entry);
  const readManifest = (pkg) => {
    const file = path.join(root, 'node_modules', pkg, 'package.json');
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : lock.packages[`node_modules/${pkg}`];
  };
  const rootDependencies = { ...(rootManifest.dependencies ?? {}) };
  // A package the code requires without listing it (often `express`, referenced through decorator
  // metadata of a type import) is taken at the version the lockfile hoisted, with a warning.
  for (const pkg of packages) {
    if (pkg in rootDependencies) continue;
    const hoisted = lock.packages[`node_modules/${pkg}`];
    if (!hoisted || hoisted.dev) {
      console.error(`prune-package: ${app} requires ${pkg}, which is not a production dependency in package.json`);
      process.exit(1);
    }
    console.warn(`prune-package: ${app} requires ${pkg} without listing it in package.json; using the locked ${hoisted.version}`);
    rootDependencies[pkg] = hoisted.version;
  }
  const dependencies = selectDependencies(packages, rootDependencies, readManifest);
  const name = `@platform/${app}`;
  const manifest = {
    name,
    version: rootManifest.version,
    private: true,
    license: rootManifest.license,
    engines: rootManifest.engines,
    dependencies,
  };
  const dir = path.dirname(entry);
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(pruneLock(lock, name, dependencies), null, 2)}\n`);
  console.log(
    `prune-package: ${app}: ${files.size} files, ${Object.keys(dependencies).length} of ${Object.keys(rootManifest.dependencies ?? {}).length} dependencies → ${path.relative(root, dir)}/package.json`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
