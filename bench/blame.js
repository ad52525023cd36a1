#!/usr/bin/env node
// Benchmark: `gcpatch blame` and `gcpatch why` (src/blame/, from dist/) on a generated history of
// 1,000 commits over a 200-module package: every 10th commit a patch applied with evidence
// (applyPatch), every 25th a reformat, the others hand edits of one module, re-pinned in
// package.toml as `gcpatch pack` does (so nearly every commit changes the manifest). Commits 250
// and 500 give histories of 250/500/1,000 commits in one repository, so the figures show how the
// cost grows with the number of commits. Each run opens the history afresh (no cache between runs):
// wall and CPU ms (process.cpuUsage), medians of `runs`, the sizes alternated so load drift affects
// all alike. Blame follows a module whose forms mostly date from the first commit (the walk goes
// all the way back); why follows a definition never changed since the first commit.
// Needs `npm run build`. Standalone: `node bench/blame.js [runs]`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, median } from './util.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODULES = 200;
const COMMITS = 1000;

export async function libs() {
  const load = (p) => import(pathToFileURL(join(root, 'dist', p)).href);
  return {
    ...(await load('patch/apply/host.js')),
    ...(await load('patch/apply/apply.js')),
    ...(await load('coreform/read.js')),
    ...(await load('coreform/canon.js')),
    ...(await load('coreform/hash.js')),
    ...(await load('blame/open.js')),
    ...(await load('blame/blame.js')),
    ...(await load('blame/why.js')),
  };
}

const modulePath = (i) => `mods/m${String(i).padStart(3, '0')}.gc`;
const moduleText = (i, value, spaced = false) =>
  `(def ::meta '{:caps [] :exports [bench/m${i}::value bench/m${i}::label bench/m${i}::rate]})\n\n` +
  `(def bench/m${i}::value${spaced ? '\n ' : ''} (fn (x) (prim int/add x ${value})))\n\n` +
  `(def bench/m${i}::label "module ${i}")\n\n(def bench/m${i}::rate ${i})\n`;

/** Every file under `dir` (relative paths), for the commits that ran a patch. */
function listFiles(dir, prefix = '') {
  const out = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

/**
 * Builds the repository with one `git fast-import` stream (a process per commit would dominate
 * the set-up). Returns the repository and the oids of commits 250, 500 and 1,000.
 */
export function buildHistory(L) {
  const repo = mkdtempSync(join(tmpdir(), 'gcpatch-bench-blame-'));
  const work = join(repo, 'work');
  mkdirSync(join(work, 'mods'), { recursive: true });
  const values = Array.from({ length: MODULES }, (_, i) => i);
  for (let i = 0; i < MODULES; i++) writeFileSync(join(work, modulePath(i)), moduleText(i, values[i]));
  writeFileSync(
    join(work, 'package.toml'),
    'schema = 1\nname = "bench"\nversion = "0.1.0"\ndependencies = []\nobligations = []\ntests = []\n' +
      Array.from({ length: MODULES }, (_, i) => `\n[[modules]]\npath = "${modulePath(i)}"\n`).join(''),
  );
  L.packOnDisk(work);
  const chunks = [];
  const data = (text) => {
    const b = Buffer.from(text);
    chunks.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
  };
  const emit = (n, message, files) => {
    const when = 1767268800 + n * 3600;
    chunks.push(
      Buffer.from(
        `commit refs/heads/main\nmark :${n + 1}\nauthor Bench <bench@example.invalid> ${when} +0000\ncommitter Bench <bench@example.invalid> ${when} +0000\n`,
      ),
    );
    data(message);
    for (const f of files) {
      chunks.push(Buffer.from(`M 100644 inline pkg/${f}\n`));
      data(readFileSync(join(work, f), 'utf8'));
    }
  };
  emit(0, 'bench package', listFiles(work));
  let known = new Set(listFiles(work));
  for (let n = 1; n < COMMITS; n++) {
    const m = (n * 7) % MODULES;
    if (n % 10 === 0) {
      values[m] += 1;
      L.applyPatch({
        pkg: work,
        patch: L.readTerm(
          `{:version 1 :intent "bump value ${m}" :provenance {:bench ${n}}
            :ops [{:op :replace-node :module-path "${modulePath(m)}" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]
                   :new (fn (x) (prim int/add x ${values[m]}))}]}`,
        ),
      });
      const now = listFiles(work);
      const changed = now.filter(
        (f) => !known.has(f) || f === 'package.toml' || f === modulePath(m) || (f.startsWith('.genesis/') && !f.startsWith('.genesis/store/')),
      );
      known = new Set(now);
      emit(n, `patch ${n}`, changed);
    } else if (n % 25 === 0) {
      writeFileSync(join(work, modulePath(m)), moduleText(m, values[m], true));
      emit(n, `reformat ${n}`, [modulePath(m)]);
    } else {
      values[m] += 1;
      const text = moduleText(m, values[m]);
      writeFileSync(join(work, modulePath(m)), text);
      // re-pin the module as `gcpatch pack` would, so every commit changes package.toml too
      const manifest = join(work, 'package.toml');
      const pin = L.hashModule(L.canonicalizeSource(text));
      writeFileSync(
        manifest,
        readFileSync(manifest, 'utf8').replace(new RegExp(`hash = "[0-9a-f]+"\npath = "${modulePath(m)}"`), `hash = "${pin}"\npath = "${modulePath(m)}"`),
      );
      emit(n, `hand edit ${n}`, [modulePath(m), 'package.toml']);
    }
  }
  const r = spawnSync('git', ['init', '-q', '-b', 'main', join(repo, 'git')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const dir = join(repo, 'git');
  const fi = spawnSync('git', ['fast-import', '--quiet'], { cwd: dir, input: Buffer.concat(chunks), maxBuffer: 1 << 30 });
  if (fi.status !== 0) throw new Error(String(fi.stderr));
  const list = spawnSync('git', ['rev-list', '--reverse', 'main'], { cwd: dir, encoding: 'utf8' }).stdout.trim().split('\n');
  return { repo, dir, heads: { 250: list[249], 500: list[499], 1000: list[999] } };
}

/** @param runs runs per case (default 3; medians reported). */
export async function run(runs = 3) {
  const L = await libs();
  const t0 = performance.now();
  const h = buildHistory(L);
  console.log(`blame: generated ${COMMITS} commits over ${MODULES} modules in ${fmt((performance.now() - t0) / 1000, 1)} s (not timed below)`);
  // A module the walk must follow to the first commit (edited once, early), and a symbol never changed.
  const module = `pkg/${modulePath(1)}`;
  const symbol = 'bench/m3::label';
  try {
    const sizes = [250, 500, 1000];
    const times = {};
    for (const cmd of ['blame', 'why']) for (const k of ['wall', 'cpu']) times[`${cmd}.${k}`] = new Map(sizes.map((s) => [s, []]));
    const measure = async (fn) => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await fn();
      const c = process.cpuUsage(c0);
      return { out, wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
    };
    for (let i = 0; i <= runs; i++) {
      const order = i % 2 === 0 ? sizes : [...sizes].reverse();
      for (const size of order) {
        const b = await measure(async () => {
          const o = await L.openPackageHistory({ cwd: h.dir, rev: h.heads[size], module });
          return L.blameModule(o.history, o.module);
        });
        if (b.out.forms.length !== 4) throw new Error('unexpected blame');
        const w = await measure(async () => {
          const o = await L.openPackageHistory({ cwd: h.dir, rev: h.heads[size], pkg: 'pkg' });
          return L.whySymbol(o.history, symbol);
        });
        if (w.out.end.reason !== 'introduced') throw new Error('unexpected why');
        if (i === 0) continue; // warm-up (JIT)
        for (const [cmd, r] of [
          ['blame', b],
          ['why', w],
        ]) {
          times[`${cmd}.wall`].get(size).push(r.wall);
          times[`${cmd}.cpu`].get(size).push(r.cpu);
        }
      }
    }
    const results = [];
    for (const cmd of ['blame', 'why']) {
      const wall = sizes.map((s) => median(times[`${cmd}.wall`].get(s)));
      const cpu = sizes.map((s) => median(times[`${cmd}.cpu`].get(s)));
      results.push({ cmd, wallMs: Object.fromEntries(sizes.map((s, i) => [s, wall[i]])), cpuMs: Object.fromEntries(sizes.map((s, i) => [s, cpu[i]])) });
      console.log(
        `${cmd}: ${sizes.map((s, i) => `${s} commits ${fmt(wall[i], 0)} ms wall / ${fmt(cpu[i], 0)} ms CPU (${fmt(cpu[i] / s, 2)} ms/commit)`).join(', ')}; ` +
          `CPU ratio 1000/250 ${fmt(cpu[2] / cpu[0], 2)}, 1000/500 ${fmt(cpu[2] / cpu[1], 2)} (linear: 4.00, 2.00); medians of ${runs}; load average ${fmt(loadavg()[0], 1)}`,
      );
    }
    return results;
  } finally {
    rmSync(h.repo, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run(Number(process.argv[2] ?? 3));
