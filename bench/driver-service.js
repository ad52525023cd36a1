#!/usr/bin/env node
// The warm merge service (docs/driver.md "The warm merge service"): what git pays per file with the
// installed driver line, with and without the service, against plain git, in one run.
//
// 1. A wide `git merge`: 200 modules of ≈10 KB, ours editing the 2nd definition and theirs the
//    second-to-last of each (both clean for git and the driver): plain git, the driver without the
//    service (GCPATCH_DRIVER_SERVICE=0), the driver with the service starting cold (the merge is the
//    first of a burst: its first file only leaves a marker, its second starts the service), and with
//    the service already running.
//    Paired rounds (one of each per round), wall-time medians; ms per file is the whole merge / 200.
// 2. A rebase of 30 commits that edit 20 such modules each (600 driver runs) onto a branch that edits
//    another definition of each: plain git, without and with the service.
// 3. The first file of a burst: the configured line as git runs it (`sh -c`, %-expanded, in the work
//    tree) on one triple when no service runs and no burst is marked, with the service enabled (it
//    merges directly and leaves the marker) and disabled; the second file (it merges directly and
//    starts the service in the background); a file through the running service; and a single-file
//    `git merge` both ways. Medians of paired rounds in alternating order, their ratio, and the
//    median of the per-round ratios.
// 4. Switches and a dying service: a 64-module merge (GCPATCH_BENCH_SWITCH_FILES) with the service
//    off by the environment (GCPATCH_DRIVER_SERVICE=0, the reference), off by git config
//    (gcpatch.driverService false), on and running, and on while a killer SIGKILLs whatever the
//    `pid` file names every 100 ms (GCPATCH_BENCH_KILL_MS), so services die while starting, idle,
//    with requests queued and mid-request. Paired rounds, medians, each ratio to the reference
//    (the goal: every one ≤ 1.2×), and whether every result equals plain git's.
// Everything runs with git isolated from the user's config and without NODE_EXTRA_CA_CERTS.
// Run standalone (`node bench/driver-service.js`) or through `npm run bench` (exports `run()`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { triple } from './driver.js';
import { fmt, median } from './util.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_EDITOR: 'true',
};
delete ENV.NODE_EXTRA_CA_CERTS;
delete ENV.GCPATCH_DRIVER_SERVICE;
const OFF = { GCPATCH_DRIVER_SERVICE: '0' };

function sh(cwd, args, extra = {}) {
  return spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...ENV, ...extra }, maxBuffer: 1 << 26 });
}

function timed(fn) {
  const t0 = performance.now();
  const r = fn();
  return { ms: performance.now() - t0, r };
}

/**
 * A repository with `files` copies of `base` committed on `main` and the driver installed unless
 * `plain`; returns it with a writer of all modules.
 */
function baseRepo(dir, name, files, base, install, plain) {
  const repo = join(dir, name);
  mkdirSync(repo);
  sh(repo, ['init', '-q', '-b', 'main']);
  if (!plain) install.installDriver({ cwd: repo, commitAttributes: false });
  const write = (text) => {
    for (let i = 0; i < files; i++) writeFileSync(join(repo, `m${i}.gc`), text);
  };
  write(base);
  sh(repo, ['add', '-A']);
  sh(repo, ['commit', '-q', '-m', 'base']);
  return { repo, write, folder: join(repo, '.git', 'gcpatch', 'service') };
}

/** A wide merge: `files` modules; branch `feature` (theirs) and `main` (ours). */
function wideRepo(dir, name, files, install, plain) {
  const t = triple(10_000);
  const { repo, write, folder } = baseRepo(dir, name, files, t.base, install, plain);
  sh(repo, ['checkout', '-q', '-b', 'feature']);
  write(t.theirs);
  sh(repo, ['commit', '-q', '-am', 'theirs']);
  sh(repo, ['checkout', '-q', 'main']);
  write(t.ours);
  sh(repo, ['commit', '-q', '-am', 'ours']);
  return { repo, ours: sh(repo, ['rev-parse', 'HEAD']).stdout.trim(), folder };
}

/** `stopService` of dist/driver-service/lifecycle.js, loaded by {@link run}. */
let stopService = () => undefined;

/** One merge of `feature` into a fresh `main`; returns wall ms, status and m0.gc. */
function mergeOnce(w, extra) {
  sh(w.repo, ['reset', '-q', '--hard', w.ours]);
  const { ms, r } = timed(() => sh(w.repo, ['merge', '-q', '--no-edit', 'feature'], extra));
  return { ms, status: r.status, result: readFileSync(join(w.repo, 'm0.gc'), 'utf8') };
}

/** A rebase repository: `commits` commits on `topic`, each editing one more definition of `files` modules; `main` edits the second-to-last. */
function rebaseRepo(dir, name, files, commits, install, plain) {
  const t = triple(10_000);
  const { repo, write, folder } = baseRepo(dir, name, files, t.base, install, plain);
  sh(repo, ['checkout', '-q', '-b', 'topic']);
  let text = t.base;
  for (let c = 0; c < commits; c++) {
    // Commit c changes definition step<c+2>'s body.
    text = text.replace(`(prim int/add x ${c + 2}))`, `(prim int/mul x ${c + 2}))`);
    write(text);
    sh(repo, ['commit', '-q', '-am', `topic ${c}`]);
  }
  const tip = sh(repo, ['rev-parse', 'HEAD']).stdout.trim();
  sh(repo, ['checkout', '-q', 'main']);
  write(t.theirs);
  sh(repo, ['commit', '-q', '-am', 'main']);
  return { repo, tip, folder };
}

function rebaseOnce(rb, extra) {
  sh(rb.repo, ['checkout', '-q', '-f', '-B', 'topic', rb.tip]);
  const { ms, r } = timed(() => sh(rb.repo, ['rebase', '-q', 'main'], extra));
  const ok = r.status === 0;
  if (!ok) sh(rb.repo, ['rebase', '--abort']);
  return { ms, status: r.status, result: readFileSync(join(rb.repo, 'm0.gc'), 'utf8') };
}

/**
 * Stops the service of `folder`, waits (≤ 10 s) until its process is gone and removes the burst
 * marker, so that the next merge is the first of a burst and nothing competes with it for the CPU.
 */
function settle(folder) {
  let pid;
  try {
    pid = Number(readFileSync(join(folder, 'pid'), 'utf8'));
  } catch {
    pid = undefined;
  }
  stopService(folder);
  const alive = () => {
    try {
      return pid > 0 && process.kill(pid, 0);
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 1000 && alive(); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  // A service stopped while it was starting (before its handlers) leaves its pid file behind.
  rmSync(join(folder, 'pid'), { force: true });
  rmSync(join(folder, 'burst'), { force: true });
}

/** `on / off` as a ratio of medians and as the median of the per-round ratios. */
function ratios(on, off) {
  return `${fmt(median(on) / median(off), 2)}x; per round ${fmt(median(on.map((x, i) => x / off[i])), 2)}x`;
}

/** The wide merge (part 1): paired rounds of plain git, no service, a cold service and a running one. */
function wide(dir, install) {
  const files = Number(process.env.GCPATCH_BENCH_WIDE ?? 200);
  const rounds = Number(process.env.GCPATCH_BENCH_SERVICE_ROUNDS ?? 3);
  const plain = wideRepo(dir, 'plain', files, install, true);
  const drv = wideRepo(dir, 'driver', files, install, false);
  const samples = { plain: [], direct: [], cold: [], warm: [] };
  let same = true;
  const statuses = new Set();
  for (let r = 0; r < rounds; r++) {
    const p = mergeOnce(plain, {});
    samples.plain.push(p.ms);
    settle(drv.folder);
    const d = mergeOnce(drv, OFF);
    samples.direct.push(d.ms);
    settle(drv.folder);
    const c = mergeOnce(drv, {});
    samples.cold.push(c.ms);
    const w = mergeOnce(drv, {});
    samples.warm.push(w.ms);
    same &&= d.result === p.result && c.result === p.result && w.result === p.result;
    for (const x of [p, d, c, w]) statuses.add(x.status);
  }
  settle(drv.folder);
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  console.log(`wide git merge: ${files} .gc modules (≈10 KB) changed on both sides (wall ms, medians of ${rounds} paired rounds)`);
  console.log(`plain git (no driver)              ${fmt(m.plain, 0).padStart(7)} ms   ${fmt(m.plain / files, 1).padStart(5)} ms/file`);
  console.log(`driver, no service                 ${fmt(m.direct, 0).padStart(7)} ms   ${fmt(m.direct / files, 1).padStart(5)} ms/file`);
  console.log(
    `driver + service, first burst      ${fmt(m.cold, 0).padStart(7)} ms   ${fmt(m.cold / files, 1).padStart(5)} ms/file   ${fmt(m.direct / m.cold, 1)}x faster than no service (its second file starts the service)`,
  );
  console.log(
    `driver + service, already running  ${fmt(m.warm, 0).padStart(7)} ms   ${fmt(m.warm / files, 1).padStart(5)} ms/file   ${fmt(m.direct / m.warm, 1)}x faster than no service`,
  );
  console.log(`same result as plain git: ${same}; exit statuses: ${[...statuses].join(', ')}`);
}

/** The rebase (part 2): plain git, no service, the service, in paired rounds. */
function rebase(dir, install) {
  const commits = Number(process.env.GCPATCH_BENCH_REBASE_COMMITS ?? 30);
  const touched = Number(process.env.GCPATCH_BENCH_REBASE_FILES ?? 20);
  const rbPlain = rebaseRepo(dir, 'rebase-plain', touched, commits, install, true);
  const rb = rebaseRepo(dir, 'rebase-driver', touched, commits, install, false);
  const rs = { plain: [], direct: [], service: [] };
  let rsame = true;
  const rrounds = Number(process.env.GCPATCH_BENCH_REBASE_ROUNDS ?? 1);
  for (let r = 0; r < rrounds; r++) {
    const p = rebaseOnce(rbPlain, {});
    settle(rb.folder);
    const d = rebaseOnce(rb, OFF);
    settle(rb.folder);
    const s = rebaseOnce(rb, {});
    rs.plain.push(p.ms);
    rs.direct.push(d.ms);
    rs.service.push(s.ms);
    rsame &&= p.status === 0 && d.status === 0 && s.status === 0 && d.result === p.result && s.result === p.result;
  }
  settle(rb.folder);
  const runs = commits * touched;
  const rm = Object.fromEntries(Object.entries(rs).map(([k, v]) => [k, median(v)]));
  console.log(`\nrebase: ${commits} commits × ${touched} modules (${runs} driver runs), wall ms, median of ${rrounds} paired rounds`);
  console.log(`plain git (no driver)              ${fmt(rm.plain, 0).padStart(7)} ms`);
  console.log(
    `driver, no service                 ${fmt(rm.direct, 0).padStart(7)} ms   ${fmt((rm.direct - rm.plain) / runs, 1).padStart(5)} ms per driver run over plain git`,
  );
  console.log(
    `driver + service                   ${fmt(rm.service, 0).padStart(7)} ms   ${fmt((rm.service - rm.plain) / runs, 1).padStart(5)} ms per driver run over plain git   ${fmt(rm.direct / rm.service, 1)}x faster`,
  );
  console.log(`rebases clean and equal to plain git's: ${rsame}`);
}

/** One file (part 3): the first file of a burst, the second, one through the running service, a single-file merge. */
function oneFile(dir, install) {
  const one = wideRepo(dir, 'single', 1, install, false);
  const line = sh(one.repo, ['config', '--get', 'merge.gcpatch.driver']).stdout.trim();
  const t = triple(10_000);
  const expanded = install.expandDriverLine(
    line,
    { O: '.merge_file_O', A: '.merge_file_A', B: '.merge_file_B', L: 7, P: 'm.gc', S: 'base', X: 'ours', Y: 'theirs' },
    false,
  );
  const lineOnce = (extra) => {
    writeFileSync(join(one.repo, '.merge_file_O'), t.base);
    writeFileSync(join(one.repo, '.merge_file_A'), t.ours);
    writeFileSync(join(one.repo, '.merge_file_B'), t.theirs);
    return timed(() => spawnSync('sh', ['-c', expanded], { cwd: one.repo, env: { ...ENV, ...extra } })).ms;
  };
  const first = { on: [], off: [], second: [], warm: [] };
  const single = { on: [], off: [] };
  const n = Number(process.env.GCPATCH_BENCH_FIRST_ROUNDS ?? 21);
  for (let r = 0; r < n; r++) {
    // Paired, in alternating order: odd rounds measure "on" first.
    const pair = (off, on) => (r % 2 === 0 ? [off(), on()] : [on(), off()].reverse());
    const quiet = (fn) => () => (settle(one.folder), fn());
    const [fOff, fOn] = pair(
      quiet(() => lineOnce(OFF)),
      quiet(() => lineOnce({})),
    );
    first.off.push(fOff);
    first.on.push(fOn);
    // The same parent process (this one) again: the second file of the burst starts the service.
    settle(one.folder);
    lineOnce({});
    first.second.push(lineOnce({}));
    for (let i = 0; i < 1000 && !existsSync(join(one.folder, 'info')); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    first.warm.push(lineOnce({}));
    const [sOff, sOn] = pair(
      quiet(() => mergeOnce(one, OFF).ms),
      quiet(() => mergeOnce(one, {}).ms),
    );
    single.off.push(sOff);
    single.on.push(sOn);
  }
  settle(one.folder);
  for (const f of ['.merge_file_O', '.merge_file_A', '.merge_file_B']) rmSync(join(one.repo, f), { force: true });
  console.log(`\none 10 KB file (wall ms, medians of ${n} paired rounds; no service running and no burst marked before each "first" run)`);
  console.log(
    `first file of a burst, line as git runs it: service off ${fmt(median(first.off))}   service on ${fmt(median(first.on))} (${ratios(first.on, first.off)})`,
  );
  console.log(`second file (starts the service)           ${fmt(median(first.second))}   a file through the running service ${fmt(median(first.warm))}`);
  console.log(
    `single-file git merge:                     service off ${fmt(median(single.off))}   service on ${fmt(median(single.on))} (${ratios(single.on, single.off)})`,
  );
}

/**
 * Starts the killer of part 4: a shell that, every `ms` milliseconds, SIGKILLs the process the
 * `pid` file of `folder` names. Returns what stops it.
 */
function killLoop(folder, ms) {
  const script = `while :; do n=; read -r n <"$1/pid" 2>/dev/null && [ -n "$n" ] && kill -9 "$n" 2>/dev/null; sleep ${ms / 1000}; done`;
  const killer = spawn('sh', ['-c', script, 'sh', folder], { stdio: 'ignore', detached: true });
  return () => {
    try {
      process.kill(-killer.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  };
}

/** Part 4: the two off switches, the service on, and the service killed in a loop, against the environment switch. */
function switches(dir, install) {
  const files = Number(process.env.GCPATCH_BENCH_SWITCH_FILES ?? 64);
  const rounds = Number(process.env.GCPATCH_BENCH_SWITCH_ROUNDS ?? 3);
  const killMs = Number(process.env.GCPATCH_BENCH_KILL_MS ?? 100);
  const plain = wideRepo(dir, 'switch-plain', files, install, true);
  const drv = wideRepo(dir, 'switch-driver', files, install, false);
  const expected = mergeOnce(plain, {}).result;
  const samples = { envOff: [], configOff: [], on: [], killed: [] };
  let same = true;
  const statuses = new Set();
  const config = (value) =>
    value === undefined ? sh(drv.repo, ['config', '--unset', 'gcpatch.driverService']) : sh(drv.repo, ['config', 'gcpatch.driverService', value]);
  for (let r = 0; r < rounds; r++) {
    settle(drv.folder);
    const e = mergeOnce(drv, OFF);
    config('false');
    settle(drv.folder);
    const c = mergeOnce(drv, {});
    config(undefined);
    settle(drv.folder);
    mergeOnce(drv, {}); // starts the service
    const o = mergeOnce(drv, {});
    settle(drv.folder);
    const stop = killLoop(drv.folder, killMs);
    let k;
    try {
      k = mergeOnce(drv, {});
    } finally {
      stop();
    }
    samples.envOff.push(e.ms);
    samples.configOff.push(c.ms);
    samples.on.push(o.ms);
    samples.killed.push(k.ms);
    for (const x of [e, c, o, k]) {
      same &&= x.result === expected;
      statuses.add(x.status);
    }
  }
  settle(drv.folder);
  const m = Object.fromEntries(Object.entries(samples).map(([key, v]) => [key, median(v)]));
  const row = (label, key) =>
    `${label.padEnd(44)} ${fmt(m[key], 0).padStart(7)} ms   ${key === 'envOff' ? '(reference)' : ratios(samples[key], samples.envOff)}`;
  console.log(`\nswitches and a dying service: a ${files}-module git merge (wall ms, medians of ${rounds} paired rounds)`);
  console.log(row('service off: GCPATCH_DRIVER_SERVICE=0', 'envOff'));
  console.log(row('service off: git config gcpatch.driverService', 'configOff'));
  console.log(row('service on, running', 'on'));
  console.log(row(`service killed every ${killMs} ms (kill -9 loop)`, 'killed'));
  console.log(`every result equal to plain git's: ${same}; exit statuses: ${[...statuses].join(', ')}`);
}

/** Runs the benchmark and prints its tables. */
export async function run() {
  if (!existsSync(join(ROOT, 'driver/dist/launch.cjs'))) {
    console.log('driver bundle missing; run `npm run build:driver`');
    return;
  }
  const install = await import(pathToFileURL(join(ROOT, 'dist/driver-setup/index.js')).href);
  const lifecycle = await import(pathToFileURL(join(ROOT, 'dist/driver-service/lifecycle.js')).href);
  stopService = lifecycle.stopService;
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-bench-service-'));
  try {
    const parts = (process.env.GCPATCH_BENCH_SERVICE_PARTS ?? 'wide,rebase,one,switches').split(',');
    if (parts.includes('wide')) wide(dir, install);
    if (parts.includes('rebase')) rebase(dir, install);
    if (parts.includes('one')) oneFile(dir, install);
    if (parts.includes('switches')) switches(dir, install);
  } finally {
    spawnSync('chmod', ['-R', 'u+rwx', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await run();
