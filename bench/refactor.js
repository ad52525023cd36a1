// Refactor planning: build the closed request, plan and independently verify a rename across
// 1,000 modules (each module references the renamed symbol a few times), plus the edit-plan export,
// and the apply of that rename on disk (refactor apply = applyPatch of the verified patch): format-
// preserving (default) vs `--canonical`, in alternating pairs, medians and their ratio;
// also the module-bytes step alone (ModuleRenderer vs printModule over the 1,000 modules).
// With GCPATCH_BENCH_BASELINE=<checkout of an earlier build> (its dist/ built), the on-disk apply
// is also timed with that build, alternating with this one in the same run: both medians and
// their ratio.
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { printModule } from '../dist/coreform/print.js';
import { applyPatch } from '../dist/patch/apply/apply.js';
import { applyOpsInMemory } from '../dist/patch/ops/apply-ops.js';
import { packOnDisk } from '../dist/patch/apply/host.js';
import { normalizePatch } from '../dist/patch/protocol/normalize.js';
import { ModuleRenderer } from '../dist/patch/render/render.js';
import { packageStateFromSources } from '../dist/patch/protocol/state.js';
import { median } from './util.js';
import { canonicalizeSource } from '../dist/coreform/canon.js';
import { vec } from '../dist/coreform/term.js';
import { buildRefactorRequest } from '../dist/refactor/request.js';
import { planRefactor } from '../dist/refactor/plan.js';
import { verifyRefactorReport } from '../dist/refactor/verify.js';
import { refactorEditPlan } from '../dist/refactor/edit-plan-export.js';
import { fmt, timeMedian } from './util.js';

const FROM = 'bench/core::helper';
const TO = 'bench/core::renamed-helper';

/** A module of ~25 lines: a ::meta form, defs that call the helper, a map, quoted data, comments. */
function moduleText(i) {
  const defines = i === 0 ? `(def ${FROM} (fn (x) (prim int/add x 1)))\n` : '';
  return `; bench module ${i}
(def ::meta '{:exports [bench/m${i}::a bench/m${i}::b] :imports [${FROM}]})
${defines}
(def bench/m${i}::a
  (fn (n)
    (if (prim int/lt n ${i})
        (${FROM} n)
        (bench/m${i}::b (prim int/sub n 1)))))

(def bench/m${i}::b (fn (n) (let ((k (${FROM} n)) (j "${FROM} in a string")) [k j 'quoted])))

(def bench/m${i}::table {:helper ${FROM} :index ${i} :label "module ${i}" :tags [:x :y :z]})
`;
}

export async function run() {
  const count = 1000;
  const encoder = new TextEncoder();
  const sources = Array.from({ length: count }, (_, i) => ({ modulePath: `src/m${i}.gc`, bytes: encoder.encode(moduleText(i)) }));
  const modules = sources.map((s) => ({ modulePath: s.modulePath, forms: vec(canonicalizeSource(s.bytes)) }));
  const params = { refactorKind: 'rename', fromSymbol: FROM, toSymbol: TO };
  let request;
  const build = await timeMedian(() => {
    request = buildRefactorRequest(params, modules, { assumeCanonical: true });
  }, 7);
  let plan;
  const planMs = await timeMedian(() => {
    plan = planRefactor(request);
  }, 7);
  let verified;
  const verifyMs = await timeMedian(() => {
    verified = verifyRefactorReport(plan.report, request);
  }, 7);
  const exportMs = await timeMedian(() => refactorEditPlan(verified, sources), 5);
  const bytes = sources.reduce((n, s) => n + s.bytes.length, 0);
  console.log(
    `rename across ${count} modules (${fmt(bytes / 1024 / 1024, 2)} MB of source): ${plan.replacementCount} replacements, ${plan.patch.ops.length} ops`,
  );
  console.log(`build request (print + hash-term): median ${fmt(build)} ms`);
  console.log(`plan (scan + conflicts + normalize + report): median ${fmt(planMs)} ms`);
  console.log(`verify (independent scan + all checks): median ${fmt(verifyMs)} ms`);
  console.log(`plan + verify: ${fmt(planMs + verifyMs)} ms`);
  console.log(`edit-plan export (lex + self-check canonicalization): median ${fmt(exportMs)} ms`);

  // The module-bytes step alone: render the 1,000 renamed modules vs print them canonically.
  let toml = 'schema = 1\nname = "bench"\nversion = "1.0.0"\nobligations = []\n';
  for (const s of sources) toml += `\n[[modules]]\npath = "${s.modulePath}"\n`;
  const state = packageStateFromSources(toml, new Map(sources.map((s) => [s.modulePath, s.bytes])));
  const after = applyOpsInMemory(state, normalizePatch(verified.patch)).state;
  const originals = new Map(sources.map((s) => [s.modulePath, s.bytes]));
  const renderMs = await timeMedian(() => {
    const r = new ModuleRenderer(originals);
    for (const [path, forms] of after.modules) r.render(path, forms);
  }, 5);
  const printMs = await timeMedian(() => {
    for (const forms of after.modules.values()) encoder.encode(printModule(forms));
  }, 5);
  console.log(`module bytes of the ${count} renamed modules: format-preserving ${fmt(renderMs)} ms, canonical print ${fmt(printMs)} ms`);

  // The whole apply on disk, in alternating pairs. Every run's copy stays until the end of the
  // suite: on a filesystem without a journal (ext4 here, /proc/fs/jbd2 empty) the kernel skips
  // inodes freed within the last minutes when it allocates one (`recently_deleted` in Linux's
  // fs/ext4/ialloc.c), so deleting a run's ~2,000 files before the next run would make each of
  // that run's file creations scan past them: a cost of the bench's clean-up, not of the apply.
  const root = mkdtempSync(join(tmpdir(), 'gcpatch-bench-refactor-'));
  const template = join(root, 'template');
  mkdirSync(join(template, 'src'), { recursive: true });
  for (const s of sources) writeFileSync(join(template, s.modulePath), s.bytes);
  writeFileSync(join(template, 'package.toml'), toml);
  packOnDisk(template);
  rmSync(join(template, '.genesis'), { recursive: true, force: true });
  const patch = verified.patch;
  const times = { preserved: [], canonical: [] };
  const RUNS = 3;
  for (let r = 0; r <= RUNS; r++) {
    for (const canonical of r % 2 === 0 ? [false, true] : [true, false]) {
      const pkg = join(root, `run${r}-${canonical}`);
      cpSync(template, pkg, { recursive: true });
      const t0 = performance.now();
      const result = applyPatch({ pkg, patch, obligationRunner: '', canonical });
      const dt = performance.now() - t0;
      if (result.canonicalFallbacks.length > 0) throw new Error(`unexpected canonical fallbacks: ${JSON.stringify(result.canonicalFallbacks)}`);
      if (r > 0) times[canonical ? 'canonical' : 'preserved'].push(dt);
    }
  }
  const paired = await pairedWithBaseline(root, template, patch);
  const applyPreserved = median(times.preserved);
  const applyCanonical = median(times.canonical);
  console.log(`apply the ${count}-module rename on disk (full transaction), format-preserving: median ${fmt(applyPreserved)} ms`);
  console.log(`  same with --canonical: median ${fmt(applyCanonical)} ms; ratio ${fmt(applyPreserved / applyCanonical, 2)}x (target <= 1.5x)`);
  console.log(
    `  creating a file in this run's directory: ${fmt(creationUs(root), 0)} µs (each apply creates ${count} stage files; ` +
      `without a filesystem journal the kernel makes creation slow after many recent deletions, for both builds alike)`,
  );
  if (paired !== undefined) {
    console.log(
      `  paired with the baseline build (${paired.runs} alternating pairs): this build median ${fmt(paired.thisMs)} ms, ` +
        `baseline median ${fmt(paired.baselineMs)} ms; ratio ${fmt(paired.thisMs / paired.baselineMs, 2)}x (target <= 0.5x)`,
    );
  }
  rmSync(root, { recursive: true, force: true });
  return { modules: count, buildMs: build, planMs, verifyMs, exportMs, renderMs, printMs, applyPreserved, applyCanonical, paired };
}

/** Median µs to create one empty file (exclusively, as a stage file is) in a new directory under `root`, over 5 rounds of 200. */
function creationUs(root) {
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const dir = join(root, `creation-probe-${r}`);
    mkdirSync(dir);
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) closeSync(openSync(join(dir, `f${i}`), 'wx'));
    rounds.push(((performance.now() - t0) * 1000) / 200);
  }
  return median(rounds);
}

/**
 * With GCPATCH_BENCH_BASELINE set: the format-preserving on-disk apply of `patch` to fresh copies of
 * `template`, by this build and by the baseline build's `dist/`, alternating; medians of each.
 */
async function pairedWithBaseline(root, template, patch, runs = 5) {
  const dir = process.env.GCPATCH_BENCH_BASELINE;
  if (!dir) return undefined;
  // Builds from before the patch folder split kept applyPatch in dist/patch/apply.js.
  const file = ['dist/patch/apply/apply.js', 'dist/patch/apply.js'].map((p) => join(dir, p)).find((p) => existsSync(p));
  if (!file) throw new Error(`GCPATCH_BENCH_BASELINE=${dir}: no dist/patch/apply/apply.js (run npm run build there)`);
  const baseline = (await import(pathToFileURL(file).href)).applyPatch;
  const builds = { this: applyPatch, baseline };
  const times = { this: [], baseline: [] };
  for (let r = 0; r <= runs; r++) {
    for (const which of r % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this']) {
      const pkg = join(root, `paired${r}-${which}`);
      cpSync(template, pkg, { recursive: true });
      const t0 = performance.now();
      builds[which]({ pkg, patch, obligationRunner: '' });
      const dt = performance.now() - t0;
      if (r > 0) times[which].push(dt); // run 0 warms up; the copy stays until the suite ends (see run)
    }
  }
  return { runs, thisMs: median(times.this), baselineMs: median(times.baseline) };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
