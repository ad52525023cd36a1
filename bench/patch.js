#!/usr/bin/env node
// Benchmark: `gcpatch apply` of a 200-op patch to a 100-module package (whole transaction: normalize,
// preflight, snapshot, ops, writes, pack, acceptance, report; no obligation runner), the same ops
// replayed in memory, and a whole-store verify of 10,000 entries (the default bound is 8,192
// entries, so that run raises it with the `limits.maxEntries` option; 8,192 at the default bound
// is measured too). The apply runs in pairs: format-preserving (the default) and
// `--canonical` (the reference whole-module rewrite) on fresh copies, alternating, so the ratio of
// medians compares like with like. With GCPATCH_BENCH_BASELINE=<checkout of an earlier build> (its
// dist/ built), the format-preserving apply is also timed with that build, alternating with this
// one in the same run: both medians and their ratio. Needs `npm run build`. Standalone:
// `node bench/patch.js`.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { fmt, median } from './util.js';
import { applyPatch } from '../dist/patch/apply/apply.js';
import { applyOpsInMemory } from '../dist/patch/ops/apply-ops.js';
import { loadPackageState, packOnDisk } from '../dist/patch/apply/host.js';
import { normalizePatch } from '../dist/patch/protocol/normalize.js';
import { readTerm } from '../dist/coreform/read.js';
import { EvidenceStore } from '../dist/store/store.js';

const MODULES = 100;
const RUNS = 5;

/** A package of `n` modules, each with a ::meta form, two defs and a trailing reference; pinned. */
function writePackage(dir, n) {
  mkdirSync(join(dir, 'mods'), { recursive: true });
  let toml = 'schema = 1\nname = "bench"\nversion = "1.0.0"\nobligations = []\n';
  for (let i = 0; i < n; i++) {
    const path = `mods/m${String(i).padStart(3, '0')}.gc`;
    writeFileSync(
      join(dir, path),
      `;; bench module ${i}: a hand-written header comment\n` +
        `(def ::meta '{:caps [] :exports [bench/m${i}::value bench/m${i}::scale]})\n\n` +
        `(def bench/m${i}::value ${i})\n\n` +
        `(def bench/m${i}::scale (fn (x) (prim int/mul x bench/m${i}::value)))\n\nbench/m${i}::scale\n`,
    );
    toml += `\n[[modules]]\npath = "${path}"\n`;
  }
  writeFileSync(join(dir, 'package.toml'), toml);
  packOnDisk(dir);
  rmSync(join(dir, '.genesis'), { recursive: true, force: true });
}

/** 200 ops: per module, one replace-node of the value literal and one rename of the scale function. */
function patchText(n) {
  const ops = [];
  for (let i = 0; i < n; i++) {
    const path = `mods/m${String(i).padStart(3, '0')}.gc`;
    ops.push(`{:op :replace-node :module-path "${path}" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new ${i + 1000}}`);
    ops.push(`{:op :rename-symbol :module-path "${path}" :from bench/m${i}::scale :to bench/m${i}::times}`);
  }
  return `{:version 1 :intent "bench" :provenance {} :ops [\n${ops.join('\n')}]}`;
}

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'gcpatch-bench-patch-'));
  const template = join(root, 'template');
  writePackage(template, MODULES);
  const source = readTerm(patchText(MODULES));
  const plan = normalizePatch(source);

  const applyTimes = [];
  const canonicalTimes = [];
  for (let r = 0; r <= RUNS; r++) {
    for (const canonical of r % 2 === 0 ? [false, true] : [true, false]) {
      const pkg = join(root, `run${r}-${canonical ? 'canonical' : 'preserved'}`);
      cpSync(template, pkg, { recursive: true });
      const t0 = performance.now();
      const result = applyPatch({ pkg, patch: source, obligationRunner: '', canonical });
      const dt = performance.now() - t0;
      if (result.canonicalFallbacks.length > 0) throw new Error(`unexpected canonical fallbacks: ${JSON.stringify(result.canonicalFallbacks)}`);
      if (r > 0) (canonical ? canonicalTimes : applyTimes).push(dt); // run 0 warms up
    }
  }
  const preservedMs = median(applyTimes);
  const canonicalMs = median(canonicalTimes);
  console.log(`apply 200-op patch to ${MODULES}-module package (on disk, full transaction, format-preserving): median ${fmt(preservedMs)} ms`);
  console.log(
    `  same with --canonical (whole-module canonical print): median ${fmt(canonicalMs)} ms; ratio ${fmt(preservedMs / canonicalMs, 2)}x (target <= 1.5x)`,
  );

  const baselineDir = process.env.GCPATCH_BENCH_BASELINE;
  if (baselineDir) {
    const baseline = await import(pathToFileURL(join(baselineDir, 'dist/patch/apply.js')).href);
    const baselineRead = (await import(pathToFileURL(join(baselineDir, 'dist/coreform/read.js')).href)).readTerm;
    const builds = { this: [applyPatch, source], baseline: [baseline.applyPatch, baselineRead(patchText(MODULES))] };
    const times = { this: [], baseline: [] };
    for (let r = 0; r <= RUNS; r++) {
      for (const which of r % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this']) {
        const pkg = join(root, `paired${r}-${which}`);
        cpSync(template, pkg, { recursive: true });
        const [apply, patch] = builds[which];
        const t0 = performance.now();
        apply({ pkg, patch, obligationRunner: '' });
        if (r > 0) times[which].push(performance.now() - t0); // run 0 warms up
      }
    }
    const thisMs = median(times.this);
    const baselineMs = median(times.baseline);
    console.log(
      `  paired with the baseline build (${RUNS} alternating pairs): this build median ${fmt(thisMs)} ms, baseline median ${fmt(baselineMs)} ms; ratio ${fmt(thisMs / baselineMs, 2)}x (target <= 1.0x)`,
    );
  }

  const state = loadPackageState(template, readFileSync(join(template, 'package.toml'), 'utf8'), join(template, 'package.toml'));
  const memTimes = [];
  for (let r = 0; r <= RUNS; r++) {
    const t0 = performance.now();
    applyOpsInMemory(state, plan);
    if (r > 0) memTimes.push(performance.now() - t0);
  }
  console.log(`applyOpsInMemory of the same 200 ops: median ${fmt(median(memTimes))} ms`);

  for (const [count, limits] of [
    [10_000, { maxEntries: 10_000 }],
    [8_192, {}],
  ]) {
    const store = new EvidenceStore(join(root, `store-${count}`), { limits });
    for (let i = 0; i < count; i++) {
      store.put(Buffer.from(`{:kind "bench/entry" :i ${i} :pad "${'x'.repeat(180)}"}`));
    }
    const times = [];
    for (let r = 0; r <= RUNS; r++) {
      const t0 = performance.now();
      const result = store.verify();
      if (!result.ok) throw new Error(JSON.stringify(result.failure));
      if (r > 0) times.push(performance.now() - t0);
    }
    console.log(`store verify of ${count} entries (${count > 8192 ? 'maxEntries raised to 10,000' : 'default bound'}): median ${fmt(median(times))} ms`);
  }
  rmSync(root, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
