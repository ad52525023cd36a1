#!/usr/bin/env node
// Benchmark: `gcpatch verify-pr` (auditPullRequest from dist/) on rename PRs of 250, 500 and 2,000
// modules and on a 20-commit PR, history-aware (the default) and the earlier range-level replay
// (`history: false`, kept for this comparison), paired and alternated in one run: CPU ms
// (process.cpuUsage) per run, medians, ms per module and ms per changed path (the closed accounting
// lists every changed path). With GCPATCH_BENCH_BASELINE=<checkout of an earlier build> (its dist/
// built), the same PRs are also verified by that build, paired, and the ratio printed.
// Needs `npm run build`. Standalone: `node bench/verify-pr.js [runs]`.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, git, median } from './util.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Writes a package whose `core.gc` defines `bench/core::unit`, used by `users` further modules (also the Action bench's fixture). */
export function writePackage(dir, users) {
  mkdirSync(join(dir, 'mods'), { recursive: true });
  writeFileSync(join(dir, 'core.gc'), "(def ::meta '{:caps [] :exports [bench/core::unit]})\n\n(def bench/core::unit 1)\n");
  const modules = ['core.gc'];
  for (let i = 0; i < users; i++) {
    const path = `mods/m${String(i).padStart(4, '0')}.gc`;
    writeFileSync(
      join(dir, path),
      `(def ::meta '{:caps [] :imports [bench/core::unit] :exports [bench/m${i}::value bench/m${i}::label]})\n\n` +
        `(def bench/m${i}::value (fn (x) (prim int/add x (prim int/mul ${i} bench/core::unit))))\n\n` +
        `(def bench/m${i}::label "module ${i}")\n`,
    );
    modules.push(path);
  }
  writeFileSync(
    join(dir, 'package.toml'),
    'schema = 1\nname = "bench"\nversion = "0.1.0"\ndependencies = []\nobligations = []\ntests = []\n' +
      modules.map((p) => `\n[[modules]]\npath = "${p}"\n`).join(''),
  );
}

export async function libs(from = root) {
  const load = (p) => import(pathToFileURL(join(from, 'dist', p)).href);
  // An earlier build (the baseline) has the apply host at `dist/patch/host.js`.
  const host = existsSync(join(from, 'dist/patch/apply/host.js')) ? 'patch/apply/host.js' : 'patch/host.js';
  return {
    ...(await load(host)),
    ...(await load('refactor/request.js')),
    ...(await load('refactor/plan.js')),
    ...(await load('refactor/apply-plan.js')),
    // A build from before the PR audit's folder was named `verify-pr/` has it in `audit/`.
    ...(await load('verify-pr/verify-pr.js').catch(() => load('audit/verify-pr.js'))),
  };
}

function rename(L, pkg, from, to) {
  const { request } = L.loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: from, toSymbol: to });
  const plan = L.planRefactor(request);
  L.applyRefactorPlan({ pkg, report: plan.report, request });
}

/** Builds a repository: base commit, then `commits` renames on a branch. Returns repo, base, head. */
export function buildPr(L, users, commits) {
  const repo = mkdtempSync(join(tmpdir(), 'gcpatch-bench-verify-pr-'));
  git(repo, 'init', '-q', '-b', 'main');
  const pkg = join(repo, 'pkg');
  writePackage(pkg, users);
  L.packOnDisk(pkg);
  rmSync(join(pkg, '.genesis'), { recursive: true, force: true });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'pr');
  if (commits === 1) rename(L, pkg, 'bench/core::unit', 'bench/core::one');
  for (let i = 0; commits > 1 && i < commits; i++) {
    rename(L, pkg, `bench/m${i}::label`, `bench/m${i}::title`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', `rename label ${i}`);
  }
  if (commits === 1) {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'rename unit');
  }
  return { repo, base, head: git(repo, 'rev-parse', 'HEAD') };
}

async function timed(L, pr, history) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await L.auditPullRequest({ dir: pr.repo, base: pr.base, head: pr.head, history });
  pr.paths = report.paths?.length ?? pr.paths;
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  // The history-aware check must pass every case; the earlier range-level replay fails a multi-commit
  // PR whose evidence sorts out of order (docs/action.md "How verify-pr follows history"): its time is still reported, with its error count.
  if (!report.ok && history) throw new Error(`verify-pr failed: ${JSON.stringify(report.findings.slice(0, 3))}`);
  return { cpu: (c.user + c.system) / 1000, wall, errors: report.findings.filter((f) => f.severity === 'error').length };
}

/** @param runs paired runs per case (default 3; medians reported). */
export async function run(runs = 3) {
  const L = await libs();
  const baselineDir = process.env.GCPATCH_BENCH_BASELINE;
  const B = baselineDir ? await libs(baselineDir) : undefined;
  const cases = [
    { name: 'rename PR, 250 modules', users: 249, commits: 1 },
    { name: 'rename PR, 500 modules', users: 499, commits: 1 },
    { name: 'rename PR, 2,000 modules', users: 1999, commits: 1 },
    { name: '20-commit PR (20 renames), 250 modules', users: 249, commits: 20 },
  ];
  const results = [];
  for (const c of cases) {
    const pr = buildPr(L, c.users, c.commits);
    try {
      const now = [];
      const before = [];
      const baseline = [];
      await timed(L, pr, true); // warm-up (JIT)
      if (B !== undefined) await timed(B, { ...pr }, true);
      for (let i = 0; i < runs; i++) {
        // alternate the order so drift of the machine load affects both alike
        if (i % 2 === 0) {
          now.push(await timed(L, pr, true));
          before.push(await timed(L, pr, false));
          if (B !== undefined) baseline.push(await timed(B, { ...pr }, true));
        } else {
          if (B !== undefined) baseline.push(await timed(B, { ...pr }, true));
          before.push(await timed(L, pr, false));
          now.push(await timed(L, pr, true));
        }
      }
      const modules = c.users + 1;
      const r = {
        case: c.name,
        modules,
        historyCpuMs: median(now.map((x) => x.cpu)),
        rangeCpuMs: median(before.map((x) => x.cpu)),
        historyWallMs: median(now.map((x) => x.wall)),
        rangeWallMs: median(before.map((x) => x.wall)),
        rangeErrors: before[0].errors,
        changedPaths: pr.paths,
        baselineCpuMs: B !== undefined ? median(baseline.map((x) => x.cpu)) : undefined,
      };
      results.push(r);
      if (B !== undefined) {
        console.log(
          `verify-pr: ${c.name}: this build ${fmt(r.historyCpuMs, 0)} ms CPU, baseline build ${fmt(r.baselineCpuMs, 0)} ms CPU, ratio ${fmt(r.historyCpuMs / r.baselineCpuMs, 2)}; ` +
            `${r.changedPaths} changed paths, ${fmt(r.historyCpuMs / r.changedPaths, 2)} ms per changed path`,
        );
      }
      console.log(
        `verify-pr: ${c.name}: history-aware ${fmt(r.historyCpuMs, 0)} ms CPU (${fmt(r.historyCpuMs / modules, 2)} ms/module), ` +
          `range-level ${fmt(r.rangeCpuMs, 0)} ms CPU (${fmt(r.rangeCpuMs / modules, 2)} ms/module)${r.rangeErrors > 0 ? `, rejecting the honest PR with ${r.rangeErrors} errors` : ''}; ratio ${fmt(r.historyCpuMs / r.rangeCpuMs, 2)}; ` +
          `wall ${fmt(r.historyWallMs, 0)} / ${fmt(r.rangeWallMs, 0)} ms; medians of ${runs}; load average ${fmt(loadavg()[0], 1)}`,
      );
    } finally {
      rmSync(pr.repo, { recursive: true, force: true });
    }
  }
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run(process.argv[2] === undefined ? 3 : Number(process.argv[2]));
}
