'use strict';
/**
 * Start-up of the git merge driver (issue #15 item 2). Git starts one Node process per file both
 * sides changed, so what Node does before the merge is paid per file. This launcher:
 *
 * - compiles the CommonJS bundle `index.js` next to it with `vm.Script` and a V8 code cache
 *   (`cachedData`): the first run writes `.cache/index.js.<node>-<arch>-<size>-<mtime>.v8` after
 *   the merge (so lazily compiled functions are in it too); later runs skip parsing and compiling.
 *   The cache lives beside the bundle and is never committed (`driver/dist/.cache` is ignored; an
 *   install copies the bundle to a stable place and warms the cache there). A cache that cannot be
 *   read, is rejected by V8 or cannot be written costs one normal compile, nothing else.
 *   `GCPATCH_DRIVER_CODE_CACHE=0` turns it off (for measuring).
 * - hands the bundle a `require` that loads `child_process` only when a function of it is first
 *   used (the line-merge fallback and `git config` reads), and `perf_hooks` likewise (the merge's
 *   time budget; ≈8 ms to load): `--version`, trivial merges and small merges need neither.
 *
 * Exit codes are the bundle's. When the bundle cannot be read or compiled this prints one line and exits 2, so
 * the installed driver line (which treats anything but 0 and its conflict status as "not started")
 * falls back to `git merge-file`.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const bundle = path.join(__dirname, 'index.js');
let source;
let stat;
try {
  source = fs.readFileSync(bundle, 'utf8');
  stat = fs.statSync(bundle);
} catch (error) {
  process.stderr.write(`gcpatch: cannot read the merge driver bundle ${bundle} (${error.code || error.message}); run \`gcpatch driver install\`\n`);
  process.exit(2);
}

const LAZY = new Set(['child_process', 'node:child_process', 'perf_hooks', 'node:perf_hooks']);
function lazyRequire(id) {
  if (!LAZY.has(id)) return require(id);
  let real;
  const load = () => (real ??= require(id));
  return new Proxy({}, {
    get: (_t, key) => load()[key],
    has: (_t, key) => key in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Object.getOwnPropertyDescriptor(load(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
}

const useCache = process.env.GCPATCH_DRIVER_CODE_CACHE !== '0';
const cacheDir = path.join(__dirname, '.cache');
const cacheFile = path.join(cacheDir, `index.js.${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
let cachedData;
if (useCache) {
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
}
const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
let script;
try {
  script = new vm.Script(wrapper, { filename: bundle, cachedData });
} catch (error) {
  process.stderr.write(`gcpatch: the merge driver bundle ${bundle} does not compile (${error.message}); run \`gcpatch driver install\`\n`);
  process.exit(2);
}
if (useCache && (cachedData === undefined || script.cachedDataRejected === true)) {
  // Written at exit, after the merge ran, so that the functions it compiled are cached as well.
  process.once('exit', () => {
    try {
      const data = script.createCachedData();
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, data);
      fs.renameSync(tmp, cacheFile);
    } catch {
      // A read-only install directory: run without a cache.
    }
  });
}
const mod = { exports: {}, id: bundle, filename: bundle, loaded: false };
script.runInThisContext()(mod.exports, lazyRequire, mod, bundle, __dirname);
