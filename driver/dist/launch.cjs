'use strict';
/**
 * Start-up of the git merge driver. Git starts one Node process per file both
 * sides changed, so what Node does before the merge is paid per file. This launcher:
 *
 * - compiles the CommonJS bundle `index.js` next to it with `vm.Script` and a V8 code cache
 *   (`cachedData`) in `.cache/index.js.<node>-<arch>-<size>-<mtime>[.pre].v8`, written at exit
 *   (so the functions the run compiled lazily are in it too); later runs skip parsing and compiling
 *   them. A run that is not a representative merge (`--version`, `--self-check`, the install's
 *   two-form example) writes the `.pre` cache when there is none; the first merge of an input of at
 *   least `REPRESENTATIVE` bytes writes the final cache once (the structural merge, its reader and
 *   rendering compiled: 10 KB merge ≈ 4% less CPU than with a `--version` cache), and no run writes
 *   after that. The cache lives beside the bundle and is never committed (`driver/dist/.cache` is
 *   ignored; an install copies the bundle to a stable place and warms the cache there). A cache that
 *   cannot be read, is rejected by V8 or cannot be written costs one normal compile, nothing else.
 *   `GCPATCH_DRIVER_CODE_CACHE=0` turns it off (for measuring).
 * - turns V8's optimizing compiler (TurboFan) off for merges whose largest input is at most
 *   `OPTIMIZE_ABOVE` bytes (and for `--version`/`--self-check`): a driver process lives well under
 *   a second, and TurboFan's background compiles cost more CPU than the optimized code saves
 *   (measured: 10 KB 182 → 152 ms, 100 KB 400 → 240 ms, 1 MB 1248 → 974 ms of CPU, but 2 MB
 *   1811 → 2104 ms and 8 MB over the 5 s budget). The flag is set after the bundle is compiled and
 *   put back before the cache is written, so the cache (whose V8 flag hash must match) is the same
 *   in both modes. `GCPATCH_DRIVER_OPTIMIZE=1`, or `--opt`/`--turbofan` flags given to node, keep
 *   V8's default.
 * - hands the bundle a `require` that loads `child_process` only when a function of it is first
 *   used (the line-merge fallback and `git config` reads), and `os` (the line merge's temporary
 *   directory), `perf_hooks` and `net` (the warm service's FIFO) likewise: `--version` and
 *   structural merges need none of them.
 * - `--serve` (the warm merge service, docs/driver.md) is a long-lived process: V8's defaults stay.
 *
 * Exit codes are the bundle's. When the bundle cannot be read or compiled this prints one line and
 * exits `NOT_STARTED`, so the installed driver line (which treats anything but 0 and its conflict
 * status as "not started") falls back to `git merge-file`.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

/**
 * "Nothing merged": mirrors `WrappedStatus.notStarted` of src/driver-setup/exit-status.ts, which
 * this CommonJS file, copied next to the bundle, cannot import (test/driver-setup/exit-status.test.ts
 * checks that they agree).
 */
const NOT_STARTED = 2;

const bundle = path.join(__dirname, 'index.js');
let source;
let stat;
try {
  // The build writes the bundle in ASCII (driver/copy-launcher.cjs): read as latin1 it becomes a
  // one-byte string without UTF-8 decoding. Any other bundle is read as UTF-8.
  const bytes = fs.readFileSync(bundle);
  source = require('node:buffer').isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
  stat = fs.statSync(bundle);
} catch (error) {
  process.stderr.write(`gcpatch: cannot read the merge driver bundle ${bundle} (${error.code || error.message}); run \`gcpatch driver install\`\n`);
  process.exit(NOT_STARTED);
}

const LAZY = new Set(['child_process', 'node:child_process', 'perf_hooks', 'node:perf_hooks', 'os', 'node:os', 'net', 'node:net']);
function lazyRequire(id) {
  if (!LAZY.has(id)) return require(id);
  let real;
  const load = () => (real ??= require(id));
  return new Proxy(
    {},
    {
      // The bundler's interop asks every CommonJS module whether it is an ES module; Node's built-ins
      // never are, and answering that must not load them.
      get: (_t, key) => (key === '__esModule' ? undefined : load()[key]),
      has: (_t, key) => key in load(),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_t, key) => {
        const d = Object.getOwnPropertyDescriptor(load(), key);
        return d === undefined ? undefined : { ...d, configurable: true };
      },
    },
  );
}

/**
 * The merge inputs' sizes: the first three arguments after the leading `--` options
 * (`[--wrapped] [--manifest] %O %A %B ...`). `merge` is false for `--version`/`--self-check`;
 * `largest` is Infinity when an input cannot be stat'ed (the bundle then reports it).
 */
function inputs(argv) {
  let i = 0;
  while (i < argv.length && argv[i].startsWith('--')) i++;
  const files = argv.slice(i, i + 3);
  if (files.length < 3) return { merge: false, largest: 0 };
  let largest = 0;
  for (const file of files) {
    try {
      largest = Math.max(largest, fs.statSync(file).size);
    } catch {
      return { merge: true, largest: Infinity };
    }
  }
  return { merge: true, largest };
}
const run = inputs(process.argv.slice(2));

/** Largest input (bytes) still merged without TurboFan; see the header. */
const OPTIMIZE_ABOVE = 1024 * 1024;
/** Smallest largest-input (bytes) of a merge whose compiled functions are worth a cache refresh. */
const REPRESENTATIVE = 2048;

const useCache = process.env.GCPATCH_DRIVER_CODE_CACHE !== '0';
const cacheDir = path.join(__dirname, '.cache');
const cacheKey = path.join(cacheDir, `index.js.${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`);
/** Written by a representative merge; final. */
const fullCache = `${cacheKey}.v8`;
/** Written by any other run (`--version`, the install's tiny example); replaced by the full one. */
const preCache = `${cacheKey}.pre.v8`;
let cachedData;
let loaded;
if (useCache) {
  for (const file of [fullCache, preCache]) {
    try {
      cachedData = fs.readFileSync(file);
      loaded = file;
      break;
    } catch {
      cachedData = undefined;
    }
  }
}
const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
let script;
try {
  script = new vm.Script(wrapper, { filename: bundle, cachedData });
} catch (error) {
  process.stderr.write(`gcpatch: the merge driver bundle ${bundle} does not compile (${error.message}); run \`gcpatch driver install\`\n`);
  process.exit(NOT_STARTED);
}

/**
 * Something with V8's `setFlagsFromString`. `require('node:v8')` loads Node's heap-snapshot helpers
 * and with them the stream modules (≈4 ms of a 10 KB merge's ≈20 ms above bare node), so the
 * binding under it is asked first, with deprecation warnings off for that one call (DEP0111 warns
 * on stderr, which git shows); where the binding is gone, `node:v8` itself. Undefined when neither
 * works (the merge then runs with V8's defaults).
 */
function v8Flags() {
  // `--no-deprecation` makes process.noDeprecation a read-only true: then nothing to switch.
  const before = process.noDeprecation;
  const quiet = before === true;
  try {
    if (!quiet) process.noDeprecation = true;
    const binding = process.binding('v8');
    if (typeof binding.setFlagsFromString === 'function') return binding;
  } catch {
    // No such binding on this Node, or the switch is not allowed.
  } finally {
    try {
      if (!quiet) process.noDeprecation = before;
    } catch {
      // Read-only after all: it stays as Node set it.
    }
  }
  try {
    return require('node:v8');
  } catch {
    return undefined;
  }
}

const userTiering = /--(no-)?(opt|turbofan)\b/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
let v8;
const serving = process.argv[2] === '--serve';
if (process.env.GCPATCH_DRIVER_OPTIMIZE !== '1' && !userTiering && !serving && run.largest <= OPTIMIZE_ABOVE) {
  v8 = v8Flags();
  if (v8 !== undefined) v8.setFlagsFromString('--no-opt');
}

const rejected = script.cachedDataRejected === true;
const representative = run.merge && run.largest >= REPRESENTATIVE && run.largest !== Infinity;
const target = !useCache
  ? undefined
  : representative && (loaded !== fullCache || rejected)
    ? fullCache
    : loaded === undefined || rejected
      ? preCache
      : undefined;
if (target !== undefined) {
  // Written at exit, after the merge ran, so that the functions it compiled are cached as well.
  process.once('exit', () => {
    try {
      // The cache carries a hash of V8's flags: write it under the flags it was compiled with.
      if (v8 !== undefined) v8.setFlagsFromString('--opt');
      const data = script.createCachedData();
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, data);
      fs.renameSync(tmp, target);
      if (target === fullCache) fs.rmSync(preCache, { force: true });
    } catch {
      // A read-only install directory: run without a cache.
    }
  });
}
const mod = { exports: {}, id: bundle, filename: bundle, loaded: false };
script.runInThisContext()(mod.exports, lazyRequire, mod, bundle, __dirname);
