'use strict';
// Jest's module runtime with V8's code cache (the preset's `runtime`). Jest loads every module again
// for each test file and compiles it with `vm.compileFunction`, which never uses V8's own compilation
// cache (Jest passes an `importModuleDynamically` callback): parsing the same Nest, TypeORM and
// project sources again was a fifth of a test worker's CPU. This runtime keeps, per worker, the code
// cache V8 produced for each module's first compile and hands it back on the next; V8 checks it and
// compiles from scratch when it does not fit. The cache is keyed by file name and held with the
// transformed source it was made from, so an edited file (watch mode) is compiled anew.
//
// It reaches internals of jest-runtime 30 (the `executor` that compiles modules: its `compile`,
// `dynamicImport`, `resolution`, `environment`): where they are missing the runtime is Jest's own,
// unchanged, and says so once on stderr (tools/jest/code-cache-runtime.spec.ts fails then).
//   JEST_CODE_CACHE_STATS=1 prints each worker's counts when it exits.
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** filename → the transformed source and V8's code cache for it. */
const cache = new Map();
const stats = { hits: 0, misses: 0, rejected: 0 };
let warned = false;

/** Compiles a module's wrapper function with the code cache of its earlier compile, when there is one. */
function compileWithCache(source, params, options) {
  const cached = cache.get(options.filename);
  if (cached?.source === source) {
    const compiled = vm.compileFunction(source, params, { ...options, cachedData: cached.data });
    if (!compiled.cachedDataRejected) {
      stats.hits++;
      return compiled;
    }
    stats.rejected++;
  }
  const compiled = vm.compileFunction(source, params, { ...options, produceCachedData: true });
  stats.misses++;
  // A copy: the Buffer V8 hands back was made in the test file's context, and would keep it alive.
  if (compiled.cachedDataProduced) cache.set(options.filename, { source, data: Buffer.from(compiled.cachedData) });
  return compiled;
}

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    const usable =
      typeof executor?.compile === 'function' &&
      typeof executor.dynamicImport === 'function' &&
      typeof executor.resolution?.isCoreModule === 'function' &&
      typeof executor.environment?.getVmContext === 'function' &&
      Array.isArray(executor.injectedModuleParameters);
    if (!usable) {
      if (!warned) process.stderr.write('tools/jest/code-cache-runtime: jest-runtime\'s module executor is not the one this runtime knows; compiling without the code cache\n');
      warned = true;
      return;
    }
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      // Node's core modules and anything unusual: Jest's own path, with its error handling.
      if (context == null || executor.resolution.isCoreModule(filename)) return jestCompile(source, filename);
      try {
        return compileWithCache(source, executor.injectedModuleParameters, {
          filename,
          parsingContext: context,
          importModuleDynamically: (specifier, _script, attributes, phase) => executor.dynamicImport(specifier, filename, context, attributes, phase),
        });
      } catch {
        // A syntax error: Jest compiles it again to throw its own, readable error.
        return jestCompile(source, filename);
      }
    };
  }
}

if (process.env.JEST_CODE_CACHE_STATS === '1') {
  process.on('exit', () => process.stderr.write(`code cache: ${JSON.stringify({ ...stats, modules: cache.size })}\n`));
}

module.exports = CodeCacheRuntime;
module.exports.default = CodeCacheRuntime;
