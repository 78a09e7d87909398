'use strict';
// `node tools/lockfile.cjs` (run after every `npm install`; `--check` only reports).
//
// The npm registry this project installs from serves each native package's binaries for this
// platform only: @swc/core's darwin or win32 builds, for example, answer 404. `npm install` still
// records the optional edge from @swc/core to each of them, but no entry for the package itself,
// and `npm ci` then refuses the lock file ("Missing: @swc/core-darwin-arm64@ from lock file").
// This removes exactly those dangling optional edges, so that `npm ci` installs from the lock file.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');

/** Returns the dangling optional edges (`<package> -> <dependency>`) and the lock without them. */
function pruneDanglingOptional(lock) {
  const packages = lock.packages ?? {};
  const dangling = [];
  for (const [key, node] of Object.entries(packages)) {
    if (!node.optionalDependencies) continue;
    for (const dep of Object.keys(node.optionalDependencies)) {
      // Node resolution: the package's own node_modules, then each ancestor's, up to the root.
      const parts = key ? key.split('/node_modules/') : [''];
      let found = false;
      for (let i = parts.length; i >= 0 && !found; i--) {
        const base = parts.slice(0, i).join('/node_modules/');
        found = Boolean(packages[`${base ? `${base}/` : ''}node_modules/${dep}`]);
      }
      if (found) continue;
      dangling.push(`${key || '(root)'} -> ${dep}`);
      delete node.optionalDependencies[dep];
    }
    if (Object.keys(node.optionalDependencies).length === 0) delete node.optionalDependencies;
  }
  return { dangling, lock };
}

module.exports = { pruneDanglingOptional };

if (require.main === module) {
  const { dangling, lock } = pruneDanglingOptional(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (process.argv.includes('--check')) {
    if (dangling.length) {
      console.error(`package-lock.json has ${dangling.length} optional edges without entries (npm ci would refuse it); run node tools/lockfile.cjs`);
      process.exit(1);
    }
  } else if (dangling.length) {
    fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    console.log(`lockfile: removed ${dangling.length} optional edges to packages the registry does not serve here`);
  } else {
    console.log('lockfile: nothing to remove');
  }
}
