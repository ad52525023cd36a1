#!/usr/bin/env node
// Benchmark: wall time of the GitHub Action (action/dist/index.js, run as its own Node process the
// way the runner starts it) on a pull request that renames a symbol used in 500 modules, with the
// refactor-plan and apply evidence `gcpatch refactor plan/apply` produces. Needs `npm run build`
// (the fixture is produced with the library in dist/). Standalone: `node bench/action.js [modules]`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, git, median } from './util.js';
import { writePackage } from './verify-pr.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ACTION = join(root, 'action/dist/index.js');

/** Runs the bundled Action once; returns its wall time in ms and its parsed outputs. */
function runAction(workspace, base, head) {
  const tmp = mkdtempSync(join(tmpdir(), 'gcpatch-bench-runner-'));
  const event = join(tmp, 'event.json');
  writeFileSync(event, JSON.stringify({ pull_request: { number: 1, base: { sha: base }, head: { sha: head } } }));
  writeFileSync(join(tmp, 'out'), '');
  writeFileSync(join(tmp, 'summary'), '');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  Object.assign(env, {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_OUTPUT: join(tmp, 'out'),
    GITHUB_STEP_SUMMARY: join(tmp, 'summary'),
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: tmp,
    'INPUT_FAIL-ON': 'error',
    INPUT_REPLAY: 'true',
  });
  // bash's `time` reports the child's CPU (user + system) on the last line of stderr.
  env.TIMEFORMAT = '%U %S';
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', 'time "$0" "$1"', process.execPath, ACTION], { cwd: workspace, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  const [user, system] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  const cpuMs = (user + system) * 1000;
  const report = JSON.parse(readFileSync(join(tmp, 'gcpatch-pr-audit.json'), 'utf8'));
  rmSync(tmp, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`the Action failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return { ms, cpuMs, report };
}

/**
 * Builds the 500-module rename PR in a temporary repository and times the Action on it.
 * @param users modules using the renamed symbol besides its defining module (default 500).
 * @param runs timed runs (default 3; the median is reported).
 */
export async function run(users = 500, runs = 3) {
  const { packOnDisk } = await import(pathToFileURL(join(root, 'dist/patch/apply/host.js')).href);
  const { loadRefactorRequest } = await import(pathToFileURL(join(root, 'dist/refactor/request.js')).href);
  const { planRefactor } = await import(pathToFileURL(join(root, 'dist/refactor/plan.js')).href);
  const { applyRefactorPlan } = await import(pathToFileURL(join(root, 'dist/refactor/apply-plan.js')).href);

  const repo = mkdtempSync(join(tmpdir(), 'gcpatch-bench-action-'));
  try {
    git(repo, 'init', '-q', '-b', 'main');
    const pkg = join(repo, 'pkg');
    writePackage(pkg, users);
    packOnDisk(pkg);
    rmSync(join(pkg, '.genesis'), { recursive: true, force: true });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'rename');
    const t0 = performance.now();
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'bench/core::unit', toSymbol: 'bench/core::one' });
    const plan = planRefactor(request);
    applyRefactorPlan({ pkg, report: plan.report, request });
    const produce = performance.now() - t0;
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'rename bench/core::unit to bench/core::one');
    const head = git(repo, 'rev-parse', 'HEAD');

    const times = [];
    const cpu = [];
    let report;
    for (let i = 0; i < runs; i++) {
      const r = runAction(repo, base, head);
      times.push(r.ms);
      cpu.push(r.cpuMs);
      report = r.report;
    }
    const p = report.packages[0];
    if (!report.ok || p.replay.status !== 'reproduced' || p.replay.modulesChanged !== users + 1) {
      throw new Error(`unexpected audit: ${JSON.stringify({ ok: report.ok, replay: p.replay })}`);
    }
    const result = {
      modules: users + 1,
      renamedModules: p.replay.modulesChanged,
      produceEvidenceMs: produce,
      actionWallMs: median(times),
      actionRunsMs: times,
      actionCpuMs: median(cpu),
      loadAverage: loadavg()[0],
      replayMs: p.replay.millis,
      checksPassed: report.verified,
    };
    console.log(
      `action: PR renaming a symbol used in ${users} modules (${result.modules} in the package): ` +
        `Action wall time ${fmt(result.actionWallMs, 0)} ms median of ${runs} ` +
        `(runs ${times.map((t) => fmt(t, 0)).join(', ')} ms), CPU ${fmt(result.actionCpuMs, 0)} ms; ` +
        `replay ${result.replayMs} ms; ${result.checksPassed} checks passed; producing the evidence (plan + apply) took ` +
        `${fmt(produce, 0)} ms; load average ${fmt(result.loadAverage, 1)}`,
    );
    return result;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const users = process.argv[2] === undefined ? 500 : Number(process.argv[2]);
  await run(users);
}
