// CoreForm pipeline throughput: read + canonicalize + print + hash (paired with a baseline build when
// GCPATCH_BENCH_BASELINE names one), readModule against JSON.parse of the same trees, BLAKE3 through
// WebAssembly against @noble/hashes; and the
// reader's scan (`scanModule`, what the merge driver runs on each side) against a plain byte loop,
// warm (median of several runs in this process) and cold (one scan in a fresh `node` process, as
// every git merge of a file runs it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import * as reader from '../dist/coreform/read.js';
import * as scans from '../dist/coreform/scan.js';
import { moduleSource } from './corpus.js';
import { fmt, median, timeMedian } from './util.js';

const read = { ...reader, ...scans };
const distUrl = (file) => pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/coreform', file)).href;
const READ_JS = distUrl('read.js');
const SCAN_JS = distUrl('scan.js');

/** A plain byte loop over `s`: counts '(' bytes (the floor any scanner is measured against). */
function countOpen(s) {
  let k = 0;
  for (let i = 0; i < s.length; i++) if (s[i] === 0x28) k++;
  return k;
}

/** One module of about `bytes` bytes in the benchmark corpus style. */
function bigModule(bytes) {
  const encoder = new TextEncoder();
  const probe = encoder.encode(moduleSource('bench', 0, 1000)).length;
  return encoder.encode(moduleSource('bench', 0, Math.ceil((1000 * bytes) / probe)));
}

// The cold run: a fresh process imports the reader and the scans, reads the file, then times one call of the
// function named on the command line (wall and CPU ms; CPU includes V8's compiler threads), and
// the first three calls (on copies of the bytes), as the merge driver scans base, ours and theirs.
const COLD_SCRIPT = `
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
const read = { ...(await import(process.argv[2])), ...(await import(process.argv[5])) };
const src = new Uint8Array(readFileSync(process.argv[3]));
const fns = {
  bytes: (s) => { let k = 0; for (let i = 0; i < s.length; i++) if (s[i] === 0x28) k++; return k; },
  scan: (s) => read.scanModule(s),
  reader: (s) => read.scanModuleReader(s),
  readModule: (s) => read.readModule(s),
  readTerms: (s) => { for (const f of read.scanModule(s).forms) read.readTerm(s.subarray(f.start, f.end)); },
};
const fn = fns[process.argv[4]];
const copies = [src.slice(), src.slice()];
const c0 = process.cpuUsage();
const t0 = performance.now();
fn(src);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
for (const c of copies) fn(c);
const t3 = performance.now();
const c3 = process.cpuUsage(c0);
console.log(JSON.stringify([t1 - t0, (c1.user + c1.system) / 1000, t3 - t0, (c3.user + c3.system) / 1000]));
`;

/**
 * Cold figures of each of `whats` on `file`: medians over `rounds` fresh processes per function,
 * run round-robin so that load from elsewhere on the machine falls on all of them alike.
 * @returns per function: [wall ms of one call, CPU ms of one call, wall ms of three, CPU ms of three].
 */
function coldMs(dir, file, whats, rounds) {
  const runs = new Map(whats.map((w) => [w, []]));
  for (let i = 0; i < rounds; i++) {
    for (const what of whats) {
      const r = spawnSync(process.execPath, [join(dir, 'cold.mjs'), READ_JS, file, what, SCAN_JS], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      runs.get(what).push(JSON.parse(r.stdout));
    }
  }
  return new Map([...runs].map(([w, rs]) => [w, [0, 1, 2, 3].map((k) => median(rs.map((r) => r[k])))]));
}

/** scanModule (and the Reader-based scan it replaced, when exported) vs a byte loop, warm and cold. */
export async function runScan() {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-scan-'));
  const rounds = Number(process.env.GCPATCH_BENCH_COLD_ROUNDS ?? 9);
  try {
    writeFileSync(join(dir, 'cold.mjs'), COLD_SCRIPT);
    {
      // readTerm on small inputs: every form of a ~100 KB module read on its own (the driver reads
      // a form's term this way when it needs one).
      const src = bigModule(100 * 1024);
      const file = join(dir, 'small.gc');
      writeFileSync(file, src);
      const forms = read.scanModule(src).forms.map((f) => src.subarray(f.start, f.end));
      const warm = await timeMedian(
        () => {
          for (const f of forms) read.readTerm(f);
        },
        15,
        5,
      );
      const cold = coldMs(dir, file, ['readTerms'], rounds).get('readTerms');
      console.log(
        `readTerm of each of the ${forms.length} forms of a ${fmt(src.length / 1024, 0)} KB module: warm ${fmt(warm, 2)} ms (${fmt((warm * 1000) / forms.length, 2)} us/form); cold (with its scan) ${fmt(cold[0], 1)} ms wall, ${fmt(cold[1], 1)} ms CPU`,
      );
    }
    const kinds = [
      ['bytes', 'byte loop (count "(")', countOpen],
      ['scan', 'scanModule', read.scanModule],
    ];
    if (read.scanModuleReader) kinds.push(['reader', 'Reader-based scan (before)', read.scanModuleReader]);
    kinds.push(['readModule', 'readModule (terms)', read.readModule]);
    for (const size of [1, 3]) {
      const src = bigModule(size * 1024 * 1024);
      const file = join(dir, `m${size}.gc`);
      writeFileSync(file, src);
      const mb = src.length / (1024 * 1024);
      console.log(
        `one ${fmt(mb, 2)} MB module (${read.scanModule(src).forms.length} forms): warm = median of 15 runs; cold = medians of ${rounds} fresh processes (wall ms, CPU ms; first call, then the first three calls)`,
      );
      const cold = coldMs(
        dir,
        file,
        kinds.map((k) => k[0]),
        rounds,
      );
      let base;
      for (const [key, label, fn] of kinds) {
        const warm = await timeMedian(() => fn(src), 15, 5);
        const [w1, c1, w3, c3] = cold.get(key);
        base ??= { warm, w1 };
        const rel = key === 'bytes' ? '' : `  ${fmt(warm / base.warm, 1)}x / ${fmt(w1 / base.w1, 1)}x the byte loop`;
        console.log(
          `  ${label.padEnd(27)} warm ${fmt(warm, 2).padStart(7)} ms = ${fmt(mb / (warm / 1000), 0).padStart(4)} MB/s | cold ${fmt(w1, 1).padStart(6)} ms = ${fmt(mb / (w1 / 1000), 0).padStart(3)} MB/s, CPU ${fmt(c1, 1).padStart(6)} | 3 calls ${fmt(w3, 1).padStart(6)}, CPU ${fmt(c3, 1).padStart(6)}${rel}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The build that `run` pairs this one with: `GCPATCH_BENCH_BASELINE` names a directory holding a
 * build (its `dist/`), or a git revision, which is exported into a temporary directory (with
 * `git archive`, sharing this checkout's node_modules) and built there with `tsc` first. Unset:
 * no baseline, the rows are this build alone.
 * @returns the baseline's `dist/` directory, or undefined.
 */
function baselineDist() {
  const want = process.env.GCPATCH_BENCH_BASELINE;
  if (!want) return undefined;
  if (existsSync(join(want, 'dist', 'coreform', 'hash.js'))) return resolve(want, 'dist');
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const dir = join(tmpdir(), `gcpatch-bench-baseline-${want.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  if (!existsSync(join(dir, 'dist', 'coreform', 'hash.js'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('git', ['-C', root, 'archive', '--format=tar', want], { maxBuffer: 1 << 30 });
    if (archive.status !== 0) throw new Error(`GCPATCH_BENCH_BASELINE=${want}: git archive failed: ${archive.stderr}`);
    const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`GCPATCH_BENCH_BASELINE=${want}: tar failed: ${untar.stderr}`);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, encoding: 'utf8' });
    if (tsc.status !== 0) throw new Error(`GCPATCH_BENCH_BASELINE=${want}: build failed: ${tsc.stdout}${tsc.stderr}`);
  }
  return join(dir, 'dist');
}

/** The coreform modules of a build's `dist/` directory. */
async function coreformOf(dist) {
  const url = (f) => pathToFileURL(join(dist, 'coreform', f)).href;
  return {
    canon: await import(url('canon.js')),
    hash: await import(url('hash.js')),
    read: await import(url('read.js')),
    json: await import(url('json.js')),
  };
}

/** The `.gc` files of the repository's fixtures that read and canonicalize (the real-module corpus). */
function realModules(canon) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures');
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.gc')) {
        const bytes = new Uint8Array(readFileSync(p));
        try {
          canon.canonicalizeSource(bytes);
          out.push(bytes);
        } catch {
          // a fixture that is meant not to read (a parse-error case)
        }
      }
    }
  };
  walk(root);
  return out;
}

/**
 * Median ms of `fns` (one per build), run round-robin `runs` times after a warm-up, so that load
 * from elsewhere on the machine falls on all of them alike; the order turns every round (the one
 * run second would otherwise collect the garbage of the first), and with `node --expose-gc` the
 * heap is collected before each run. `GCPATCH_BENCH_CPU=1` measures process CPU time (user +
 * system, GC threads included) instead of wall time: steadier on a shared machine.
 */
function pairedMedians(fns, runs) {
  const cpu = process.env.GCPATCH_BENCH_CPU === '1';
  const now = cpu
    ? () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      }
    : () => performance.now();
  for (const f of fns) f();
  const times = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < fns.length; j++) {
      const k = (i + j) % fns.length;
      globalThis.gc?.();
      const t0 = now();
      fns[k]();
      times[k].push(now() - t0);
    }
  }
  return times.map(median);
}

/** One row: this build's median and throughput, and the baseline's with the ratio when there is one. */
function row(label, mb, [now, base]) {
  const rate = (ms) => `${fmt(ms, 1).padStart(7)} ms = ${fmt(mb / (ms / 1000), 1).padStart(6)} MB/s`;
  const paired = base === undefined ? '' : ` | baseline ${rate(base)} | ${fmt(base / now, 2)}x the baseline`;
  console.log(`  ${label.padEnd(34)} ${rate(now)}${paired}`);
}

/** BLAKE3 through the WebAssembly module and through @noble/hashes, and the module's instantiation cost in a fresh process. */
async function runBlake3(dir) {
  const b3 = await import(pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/coreform/blake3.js')).href);
  console.log(`BLAKE3, backend in use: ${b3.blake3Backend()} (medians; ratio = @noble/hashes time / WebAssembly time)`);
  for (const size of [100, 64 * 1024, 1024 * 1024]) {
    const data = new Uint8Array(size);
    for (let i = 0; i < size; i++) data[i] = (i * 2654435761) >>> 24;
    const reps = Math.max(3, Math.floor((8 * 1024 * 1024) / (size + 256)));
    const [wasm, noble] = pairedMedians(
      [
        () => {
          b3.setBlake3Backend('wasm');
          for (let i = 0; i < reps; i++) b3.blake3Of(data);
        },
        () => {
          for (let i = 0; i < reps; i++) blake3(data);
        },
      ],
      9,
    );
    b3.setBlake3Backend(undefined);
    const us = (ms) => `${fmt((ms * 1000) / reps, 2).padStart(9)} us = ${fmt(size / 1048576 / (ms / 1000 / reps), 0).padStart(4)} MB/s`;
    console.log(`  ${String(size).padStart(8)} B: wasm ${us(wasm)} | noble ${us(noble)} | ${fmt(noble / wasm, 1)}x`);
  }
  // Instantiation: a fresh process imports blake3.js, then times its first hash (which instantiates).
  const script = join(dir, 'b3cold.mjs');
  writeFileSync(
    script,
    `import { performance } from 'node:perf_hooks';\nconst m = await import(process.argv[2]);\nconst t0 = performance.now();\nm.blake3Of(new Uint8Array(100));\nconst t1 = performance.now();\nm.blake3Of(new Uint8Array(100));\nconsole.log(JSON.stringify([t1 - t0, performance.now() - t1]));\n`,
  );
  const firsts = [];
  const seconds = [];
  for (let i = 0; i < 9; i++) {
    const r = spawnSync(process.execPath, [script, pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../dist/coreform/blake3.js')).href], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    const [a, b] = JSON.parse(r.stdout);
    firsts.push(a);
    seconds.push(b);
  }
  console.log(
    `  instantiation (first 100-byte hash of a fresh process, median of 9): ${fmt(median(firsts), 2)} ms; the second hash: ${fmt(median(seconds) * 1000, 1)} us`,
  );
}

/** `run(true)` (`node bench/coreform.js pipeline`): without the scan rows. */
export async function run(skipScan = false) {
  const encoder = new TextEncoder();
  const now = await coreformOf(resolve(dirname(fileURLToPath(import.meta.url)), '../dist'));
  const baseDist = baselineDist();
  const base = baseDist === undefined ? undefined : await coreformOf(baseDist);
  const builds = base === undefined ? [now] : [now, base];
  console.log(
    base === undefined
      ? 'this build only (set GCPATCH_BENCH_BASELINE to a git revision or a build directory to pair it with another)'
      : `paired with the baseline build in ${baseDist}: medians of round-robin runs`,
  );
  const modules = [];
  let total = 0;
  for (let i = 0; total < 6 * 1024 * 1024; i++) {
    const bytes = encoder.encode(moduleSource('bench', i, 120));
    modules.push(bytes);
    total += bytes.length;
  }
  const real = realModules(now.canon);
  const realMb = real.reduce((a, m) => a + m.length, 0) / (1024 * 1024);
  const mb = total / (1024 * 1024);
  const pipe = (ms) => (x) => () => {
    for (const m of ms) x.hash.hashModule(x.canon.canonicalizeSource(m));
  };
  console.log(`generated corpus: ${modules.length} modules, ${fmt(mb, 2)} MB; real corpus: the ${real.length} fixtures modules, ${fmt(realMb, 2)} MB`);
  row('read+canonicalize+print+hash', mb, pairedMedians(builds.map(pipe(modules)), 7));
  row('  the same, the real corpus', realMb, pairedMedians(builds.map(pipe(real)), 15));
  row(
    'readModule',
    mb,
    pairedMedians(
      builds.map((x) => () => {
        for (const m of modules) x.read.readModule(m);
      }),
      7,
    ),
  );
  row(
    'read+canonicalize',
    mb,
    pairedMedians(
      builds.map((x) => () => {
        for (const m of modules) x.canon.canonicalizeSource(m);
      }),
      7,
    ),
  );
  {
    // JSON.parse of the same trees: each module's forms as `gcpatch parse --json` projects them.
    const json = modules.map((m) => JSON.stringify(now.read.readModule(m).forms.map((f) => now.json.termToJson(f.term))));
    const [read, parse] = pairedMedians(
      [
        () => {
          for (const m of modules) now.read.readModule(m);
        },
        () => {
          for (const j of json) JSON.parse(j);
        },
      ],
      7,
    );
    row('JSON.parse of the same trees', mb, [parse]);
    console.log(`  readModule / JSON.parse throughput: ${fmt(parse / read, 2)} (target >= 0.5)`);
  }
  const raw = await timeMedian(() => {
    for (const m of modules) blake3(m);
  }, 5);
  row('BLAKE3 alone (@noble/hashes)', mb, [raw]);
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-b3-'));
  try {
    await runBlake3(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!skipScan) await runScan();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === 'scan') await runScan();
  else await run(process.argv[2] === 'pipeline');
}
