#!/usr/bin/env node
// Merge driver cost (docs/driver.md "Figures"): what git pays per file.
//
// 1. CPU (user + sys, from bash's `times` over a loop of runs: getrusage of the children) of one
//    driver merge against bare `node -e 0`, for ~10 KB / 100 KB / 1 MB / 8 MB modules, in paired
//    rounds (driver loop, then bare loop, alternating); medians per run and the ratio driver/bare.
//    Two more 1 MB rows: ours edits the top and the bottom (two windows on its side), and ours edits
//    every definition, so that the merge works on every element instead of the changed windows only
//    (segmentReduced).
//    The driver runs as the installed line runs it: `node launch.cjs` (CommonJS bundle, V8 code
//    cache warmed by a first run). When the committed ESM bundle of gcpatch 0.1 can be had from git
//    history it is measured too ("old ESM"). Also `git merge-file` on the same triples.
// 2. A wide `git merge`: 200 `.gc` files changed on both sides (edits far apart: git and the driver
//    both merge cleanly), without the driver, with the installed line, and with 0.1's unguarded ESM
//    line; wall-time medians and ratios.
// Everything runs without NODE_EXTRA_CA_CERTS: Node parses that file's certificates at start-up
// (≈45 ms for a system bundle), which would inflate bare node and hide the driver's own cost; the
// installed line unsets it anyway. When it is set here, its cost is printed separately, with a wide
// merge under it (what such a machine sees, where 0.1's line pays it per file).
// With GCPATCH_BENCH_BASELINE=<checkout of an earlier build> (its driver/dist/ and dist/ built), that
// build's driver is installed and warmed the same way and measured in the same paired rounds
// (column "baseline", and the ratio driver/baseline).
// Run standalone (`node bench/driver.js`) or through `npm run bench` (exports `run()`).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { fmt, median } from './util.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'driver/dist');
const LAUNCH = join(DIST, 'launch.cjs');

/** A module of about `bytes` bytes: a ::meta form, then definitions in GenesisCode style. */
export function module(bytes, edit = () => undefined) {
  const forms = ["; app/bench: generated module.\n\n(def ::meta\n  '{:caps []\n    :exports [app/bench::main]\n    :types {app/bench::main ?}})\n"];
  let size = forms[0].length;
  for (let i = 0; size < bytes; i++) {
    const body = edit(i) ?? `(prim int/add x ${i})`;
    const f = `;; Step ${i} of the pipeline.\n(def app/bench::step${i}\n  (fn (x)\n    ${body}))\n`;
    forms.push(f);
    size += f.length + 1;
  }
  return `${forms.join('\n')}\napp/bench::step0\n`;
}

/**
 * Base, ours (edits the 2nd definition) and theirs (edits the second-to-last), all about `bytes`
 * long. `shape` `spread`: ours also edits the fifth-to-last definition (ours' change is two windows
 * far apart); `all`: ours edits every definition but theirs' one, so that the changed windows cover
 * the module and the driver merges every element (the whole merge: the worst case of a clean merge).
 */
export function triple(bytes, shape) {
  const base = module(bytes);
  const count = (base.match(/\(def app\/bench::step/g) ?? []).length;
  const oursEdits = (i) => i === 1 || (shape === 'spread' && i === count - 5) || (shape === 'all' && i !== count - 2);
  const ours = module(bytes, (i) => (oursEdits(i) ? '(prim int/mul x 2)' : undefined));
  const theirs = module(bytes, (i) => (i === count - 2 ? '(prim int/sub x 1)' : undefined));
  return { base, ours, theirs };
}

const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The environment every measurement runs in: this one without NODE_EXTRA_CA_CERTS (see the header). */
const ENV = { ...process.env };
delete ENV.NODE_EXTRA_CA_CERTS;
const CA = process.env.NODE_EXTRA_CA_CERTS;

/**
 * CPU ms (user + sys) per run of `command` (an sh fragment using `$i`, 1..n), from bash's `times`
 * (children's getrusage) after a loop of `n` runs.
 */
function cpuPerRun(command, n, cwd, env = ENV) {
  const script = `for i in $(seq 1 ${n}); do ${command}; done >/dev/null 2>&1; times`;
  const r = spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const lines = r.stdout.trim().split('\n');
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines[lines.length - 1] ?? '');
  if (!m) throw new Error(`cannot read times from ${JSON.stringify(r.stdout)} ${r.stderr}`);
  return ((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000) / n;
}

/**
 * The committed ESM bundle of gcpatch 0.1 (driver/dist with "type": "module"), copied to `dir`:
 * `{ path, rev }` (`rev`: the commit it came from), or undefined.
 */
function oldEsmBundle(dir) {
  const git = (args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const candidates = ['HEAD'];
  const last = git(['rev-list', '-1', 'HEAD', '--', 'driver/dist/package.json']).stdout.trim();
  if (last) candidates.push(`${last}^`);
  for (const rev of candidates) {
    const pkg = git(['show', `${rev}:driver/dist/package.json`]);
    if (pkg.status !== 0 || !pkg.stdout.includes('"module"')) continue;
    const js = git(['show', `${rev}:driver/dist/index.js`]);
    if (js.status !== 0) continue;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), pkg.stdout);
    writeFileSync(join(dir, 'index.js'), js.stdout);
    const what = git(['log', '-1', '--format=%h %ad', '--date=short', rev]).stdout.trim();
    return { path: join(dir, 'index.js'), rev: what };
  }
  return undefined;
}

/**
 * Installs the driver bundle of `dist` (index.js, launch.cjs) in `inst`, its own directory, so the
 * code cache is warmed there, not in the checkout; warms it the way `gcpatch driver install` does
 * (runs the configured line, as git would, on the built-in example: a structural merge, not
 * `--version`). Returns `{ launch, line }`: the launcher's path and the configured driver line.
 */
function installDriver(install, dist, inst, cwd) {
  mkdirSync(inst);
  for (const f of ['index.js', 'launch.cjs']) cpSync(join(dist, f), join(inst, f));
  const line = install.driverCommand(q(inst), 'gc');
  const warm = install.runConfiguredLine({ cwd }, line, 'gc', true);
  if (warm.level !== 'ok') console.log(`warning: warming the code cache of ${dist} as an install does failed: ${warm.message}`);
  return { launch: join(inst, 'launch.cjs'), line };
}

/** Paired CPU rounds: returns medians (ms per run) for each named command. */
function pairedCpu(commands, n, rounds, cwd) {
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, prepare] of Object.entries(commands)) samples[name].push(cpuPerRun(prepare(), n, cwd));
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

function wideMerge(dir, files, line, runs, env = ENV) {
  const repo = join(dir, `wide-${Math.random().toString(36).slice(2)}`);
  mkdirSync(repo);
  const git = (args, extra = {}) => {
    const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...env, GIT_CONFIG_NOSYSTEM: '1', ...extra }, maxBuffer: 1 << 26 });
    return r;
  };
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.name', 'Bench']);
  git(['config', 'user.email', 'bench@example.com']);
  if (line !== undefined) {
    git(['config', 'merge.gcpatch.driver', line]);
    writeFileSync(join(repo, '.gitattributes'), '*.gc merge=gcpatch\n');
  }
  const write = (side) => {
    for (let i = 0; i < files; i++) writeFileSync(join(repo, `m${i}.gc`), side);
  };
  const t = triple(10_000);
  write(t.base);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'base']);
  git(['checkout', '-q', '-b', 'feature']);
  write(t.theirs);
  git(['commit', '-q', '-am', 'theirs']);
  git(['checkout', '-q', 'main']);
  write(t.ours);
  git(['commit', '-q', '-am', 'ours']);
  const ours = git(['rev-parse', 'HEAD']).stdout.trim();
  const times = [];
  let status = -1;
  let result = '';
  for (let r = 0; r < runs; r++) {
    git(['reset', '-q', '--hard', ours]);
    const t0 = performance.now();
    status = git(['merge', '-q', '--no-edit', 'feature']).status;
    times.push(performance.now() - t0);
    result = readFileSync(join(repo, 'm0.gc'), 'utf8');
  }
  rmSync(repo, { recursive: true, force: true });
  return { ms: median(times), status, result };
}

/** Runs the benchmark and prints its tables. */
export async function run() {
  if (!existsSync(LAUNCH)) {
    console.log(`driver bundle missing (${LAUNCH}); run \`npm run build:driver\``);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-bench-driver-'));
  try {
    // The driver as installed: its own directory, so the code cache is warmed there, not in the checkout.
    const install = await import(pathToFileURL(join(ROOT, 'dist/driver-setup/index.js')).href);
    const { launch, line } = installDriver(install, DIST, join(dir, 'installed'), dir);
    const baselineDir = process.env.GCPATCH_BENCH_BASELINE;
    const baseline = baselineDir ? installDriver(install, join(baselineDir, 'driver/dist'), join(dir, 'baseline'), dir) : undefined;
    if (baseline) console.log(`baseline driver: ${join(baselineDir, 'driver/dist')}`);
    const old = oldEsmBundle(join(dir, 'old'));
    if (old) console.log(`0.1 ESM driver: driver/dist/index.js of ${old.rev}`);
    const node = q(process.execPath);

    console.log('CPU per merge (user+sys ms, medians of paired rounds; ratio to bare `node -e 0`)');
    console.log(
      'size     forms   bare node   driver   ratio' +
        (baseline ? '   baseline   driver/baseline' : '') +
        (old ? '   old ESM   ratio' : '') +
        '   no cache   git merge-file   MB/s   exit',
    );
    // Marked rows: * ours edits the top and the bottom; ** ours edits every definition (whole merge).
    const sizes = [
      ['10 KB', 10_000, 8, 5],
      ['100 KB', 100_000, 6, 5],
      ['1 MB', 1_000_000, 3, 5],
      ['8 MB', 8_000_000, 1, 3],
      ['1 MB*', 1_000_000, 3, 5, 'spread'],
      ['1 MB**', 1_000_000, 3, 5, 'all'],
    ];
    // GCPATCH_BENCH_DRIVER_SIZES=2 measures only the first two sizes (quick runs).
    for (const [label, bytes, n, rounds, shape] of sizes.slice(0, Number(process.env.GCPATCH_BENCH_DRIVER_SIZES ?? sizes.length))) {
      const t = triple(bytes, shape);
      const work = join(dir, `${label.replace(' ', '').replace(/\*/g, '')}${shape ? `-${shape}` : ''}`);
      mkdirSync(work);
      writeFileSync(join(work, 'O'), t.base);
      writeFileSync(join(work, 'B'), t.theirs);
      writeFileSync(join(work, 'A0'), t.ours);
      const total = n * 3 + 2;
      for (let i = 0; i <= total; i++) writeFileSync(join(work, `A${i}`), t.ours);
      // Each driver run merges into a fresh copy of ours (A1, A2, …), made before its loop.
      const fresh = () => {
        for (let i = 1; i <= total; i++) writeFileSync(join(work, `A${i}`), t.ours);
      };
      const args = `O "A$i" B 7 bench.gc base ours theirs`;
      const commands = {
        bare: () => `${node} -e 0`,
        driver: () => (fresh(), `${node} ${q(launch)} --wrapped ${args}`),
        ...(baseline ? { baseline: () => (fresh(), `${node} ${q(baseline.launch)} --wrapped ${args}`) } : {}),
        ...(old ? { old: () => (fresh(), `${node} ${q(old.path)} ${args}`) } : {}),
        nocache: () => (fresh(), `GCPATCH_DRIVER_CODE_CACHE=0 ${node} ${q(launch)} --wrapped ${args}`),
        git: () => `git merge-file -p -L ours -L base -L theirs A0 O B`,
      };
      const med = pairedCpu(commands, n, rounds, work);
      const exit = spawnSync(process.execPath, [launch, 'O', 'A0', 'B', '7', 'bench.gc'], { cwd: work }).status;
      const forms = (t.base.match(/\(def /g) ?? []).length;
      const perMb = bytes / 1e6 / ((med.driver - med.bare) / 1000);
      console.log(
        `${label.padEnd(8)} ${String(forms).padStart(5)}   ${fmt(med.bare).padStart(9)}   ${fmt(med.driver).padStart(6)}   ${fmt(med.driver / med.bare, 2).padStart(5)}x` +
          (baseline ? `   ${fmt(med.baseline).padStart(8)}   ${fmt(med.driver / med.baseline, 3).padStart(14)}x` : '') +
          (old ? `   ${fmt(med.old).padStart(7)}   ${fmt(med.old / med.bare, 2).padStart(5)}x` : '') +
          `   ${fmt(med.nocache).padStart(8)}   ${fmt(med.git).padStart(14)}   ${fmt(perMb, 1).padStart(4)}   ${exit}`,
      );
    }

    console.log("*  ours also edits the fifth-to-last definition: two windows on ours' side");
    console.log("** ours edits every definition but theirs' one: the windows cover the module, every element is merged");

    const files = Number(process.env.GCPATCH_BENCH_WIDE ?? 200);
    // gcpatch 0.1's unguarded line.
    const oldLine = old ? `node ${q(old.path)} %O %A %B %L %P %S %X %Y` : undefined;
    const runs = 3;
    console.log(`\nwide git merge: ${files} .gc files changed on both sides (wall ms, median of ${runs})`);
    const none = wideMerge(dir, files, undefined, runs);
    const withDriver = wideMerge(dir, files, line, runs);
    console.log(`without driver      ${fmt(none.ms, 0).padStart(8)} ms   exit ${none.status}`);
    console.log(
      `installed driver    ${fmt(withDriver.ms, 0).padStart(8)} ms   exit ${withDriver.status}   ${fmt(withDriver.ms / files, 1)} ms/file   same result: ${withDriver.result === none.result}`,
    );
    if (old) {
      const before = wideMerge(dir, files, oldLine, runs);
      console.log(
        `0.1 ESM driver      ${fmt(before.ms, 0).padStart(8)} ms   exit ${before.status}   ${fmt(before.ms / files, 1)} ms/file   same result: ${before.result === none.result}`,
      );
      console.log(`speed-up over 0.1: ${fmt(before.ms / withDriver.ms, 2)}x (target ≥ 1.3x)`);
    } else console.log('0.1 ESM driver: not found in git history (driver/dist/package.json with "type": "module")');
    if (CA !== undefined && CA !== '') {
      // This machine sets NODE_EXTRA_CA_CERTS: what it costs Node, and the wide merge under it.
      const caEnv = { ...ENV, NODE_EXTRA_CA_CERTS: CA };
      const rounds = [];
      for (let r = 0; r < 5; r++) rounds.push([cpuPerRun(`${node} -e 0`, 4, dir, ENV), cpuPerRun(`${node} -e 0`, 4, dir, caEnv)]);
      const without = median(rounds.map((x) => x[0]));
      const withCa = median(rounds.map((x) => x[1]));
      console.log(`\nNODE_EXTRA_CA_CERTS is set here (${CA}): bare node ${fmt(withCa)} ms CPU with it, ${fmt(without)} without (${fmt(withCa / without, 2)}x)`);
      const caDriver = wideMerge(dir, files, line, 1, caEnv);
      console.log(
        `wide merge with it, installed driver (unsets it)   ${fmt(caDriver.ms, 0).padStart(8)} ms   ${fmt(caDriver.ms / files, 1)} ms/file   same result: ${caDriver.result === none.result}`,
      );
      if (old) {
        const caOld = wideMerge(dir, files, oldLine, 1, caEnv);
        console.log(
          `wide merge with it, 0.1 ESM driver                  ${fmt(caOld.ms, 0).padStart(8)} ms   ${fmt(caOld.ms / files, 1)} ms/file   speed-up ${fmt(caOld.ms / caDriver.ms, 2)}x`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await run();
