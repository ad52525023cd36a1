// End-to-end: the Action's logic entry point (action/main.ts, its exported `run()`) under GitHub's
// runner emulator @github/local-action, on an honest and a dishonest pull request in a real git
// repository holding the ledger package (fixtures/refactor/ledger).
//
// local-action reads the step's environment from a `.env` file, replaces `@actions/core` with its
// own stub (so `core.info` prints `::info::…`, `setOutput` prints `::set-output name=…::…` and a
// table of outputs, annotations print their properties unescaped with `line=` and `endLine=`, the
// job summary goes to GITHUB_STEP_SUMMARY), imports the entry point through tsx and awaits `run()`.
// Its `setFailed` records the failure without setting the exit code, so the process exits 0 either
// way and the verdict is read from the log (docs/action.md, "Run the Action under local-action").
// Each case also runs the bundled Action (action/dist) on the same pull request: both must agree.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';
import { packOnDisk } from '../../src/patch/apply/host.js';
import { ACTION, ROOT, pullRequestEvent, renameInPackage, runAction } from '../action/helpers.js';
import { tempRepo, type TempRepo } from '../git/repo-helpers.js';

const LOCAL_ACTION = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js');
/**
 * Where local-action must run: the directory that really holds node_modules. It runs `npm exec tsx`
 * and `npm ls @actions/core` in its working directory and replaces the module at the path npm
 * reports; Node loads modules by their real path, so from a checkout whose node_modules is a
 * symbolic link the stub would miss and the real @actions/core would run.
 */
const NPM_DIR = dirname(realpathSync(join(ROOT, 'node_modules')));
const ENV_TEMPLATE = join(ROOT, 'fixtures/action/local-action.env');
const FROM = 'ledger/money::add-amounts';
const TO = 'ledger/money::sum-amounts';

/** What one local-action run printed and wrote. */
interface LocalRun {
  status: number;
  stdout: string;
  stderr: string;
  /** `::info::` lines of the stubbed `core.info`, without the prefix. */
  info: string[];
  /** `::error|warning|notice props::message` lines; properties as printed (unescaped). */
  annotations: { kind: string; properties: Record<string, string>; message: string }[];
  /** `::set-output name=…::value` lines of the stubbed `core.setOutput`. */
  outputs: Record<string, string>;
  /** GITHUB_STEP_SUMMARY after the run. */
  summary: string;
  /** The JSON report at `outputs['report-path']`. */
  report: AuditReport;
}

const dirs: string[] = [];
let repo: TempRepo;
let base = '';
let honest = '';
let dishonest = '';
/** 1-based first line, at the dishonest head, of the top-level form of journal/validate.gc that holds the hidden edit. */
let editedLine = 0;

/**
 * Runs `local-action run <checkout> action/main.ts <.env>` in {@link NPM_DIR}. The `.env` is
 * fixtures/action/local-action.env with the run's paths and `inputs` (input name → value) appended.
 */
function runLocalAction(workspace: string, event: string, inputs: Record<string, string> = {}): LocalRun {
  const tmp = mkdtempSync(join(tmpdir(), 'gcpatch-local-action-'));
  dirs.push(tmp);
  const summaryFile = join(tmp, 'step_summary.md');
  const envFile = join(tmp, '.env');
  const lines = [
    `GITHUB_WORKSPACE=${workspace}`,
    `GITHUB_EVENT_PATH=${event}`,
    `GITHUB_STEP_SUMMARY=${summaryFile}`,
    `RUNNER_TEMP=${tmp}`,
    ...Object.entries(inputs).map(([name, value]) => `INPUT_${name.toUpperCase()}=${value}`),
  ];
  writeFileSync(envFile, `${readFileSync(ENV_TEMPLATE, 'utf8')}\n# this run\n${lines.join('\n')}\n`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('INPUT_') && !k.startsWith('GITHUB_')) env[k] = v;
  Object.assign(env, { FORCE_COLOR: '0', npm_config_update_notifier: 'false' });
  const r = spawnSync(process.execPath, [LOCAL_ACTION, 'run', ROOT, 'action/main.ts', envFile], {
    cwd: NPM_DIR,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const stdout = r.stdout;
  const info: string[] = [];
  const annotations: LocalRun['annotations'] = [];
  const outputs: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const i = /^::info::(.*)$/.exec(line);
    if (i !== null) info.push(i[1]!);
    const o = /^::set-output name=([^:]+)::(.*)$/.exec(line);
    if (o !== null) outputs[o[1]!] = o[2]!;
    const a = /^::(error|warning|notice)(?: (.*?))?::(.*)$/.exec(line);
    if (a === null) continue;
    // The stub joins `key=value` with ',' and escapes nothing: a part with no '=' is the rest of
    // the previous value (a title such as "acceptance claimed, not re-run").
    const properties: Record<string, string> = {};
    let last = '';
    for (const part of (a[2] ?? '').split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) properties[(last = part.slice(0, eq))] = part.slice(eq + 1);
      else if (last !== '') properties[last] += `,${part}`;
    }
    annotations.push({ kind: a[1]!, properties, message: a[3]! });
  }
  const reportPath = outputs['report-path'];
  if (reportPath === undefined) throw new Error(`local-action exited ${r.status} without a report-path output:\n${stdout}\n${r.stderr}`);
  return {
    status: r.status ?? -1,
    stdout,
    stderr: r.stderr,
    info,
    annotations,
    outputs,
    summary: existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8') : '',
    report: JSON.parse(readFileSync(reportPath, 'utf8')) as AuditReport,
  };
}

/** A pull_request event payload for base/head (fixtures/action/pull_request.json), removed after the suite. */
function event(head: string): string {
  const file = pullRequestEvent(base, head);
  dirs.push(dirname(file));
  return file;
}

/** The parts of a report that do not depend on timing or on the runner's paths. */
function verdict(report: AuditReport): unknown {
  return {
    ok: report.ok,
    verified: report.verified,
    failed: report.failed,
    findings: report.findings.map((f) => [f.severity, f.code, f.file, f.line, f.message]),
    packages: report.packages.map((p) => [p.dir, p.replay.status, p.changedModules, p.unexplainedModules, p.rows]),
  };
}

beforeAll(() => {
  for (const file of [LOCAL_ACTION, ACTION]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm ci (and npm run build:action) first`);
  }
  repo = tempRepo();
  const pkg = join(repo.dir, 'ledger');
  cpSync(join(ROOT, 'fixtures/refactor/ledger'), pkg, { recursive: true });
  base = repo.commit('ledger package');

  // Honest: the rename, with the evidence `gcpatch refactor plan` / `refactor apply` store.
  repo.git('checkout', '-q', '-b', 'rename');
  renameInPackage(pkg, FROM, TO);
  honest = repo.commit(`rename ${FROM} to ${TO}`);

  // Dishonest: the same evidence, but one renamed module also carries a hand edit, re-pinned with
  // `gcpatch pack` so that the pins agree and only the replay can tell.
  repo.git('checkout', '-q', '-b', 'rename-and-fix', base);
  renameInPackage(pkg, FROM, TO);
  const file = join(pkg, 'journal/validate.gc');
  const text = readFileSync(file, 'utf8');
  if (!text.includes('(prim vec/get p 1)')) throw new Error(`${file} has no (prim vec/get p 1) for the hand edit`);
  writeFileSync(file, text.replace('(prim vec/get p 1)', '(prim vec/get p 0)'));
  packOnDisk(join(pkg, 'package.toml'));
  dishonest = repo.commit(`rename ${FROM} to ${TO} (and a small fix)`);
  const lines = readFileSync(file, 'utf8').split('\n');
  editedLine = lines.indexOf('(def ledger/journal::total') + 1;
  if (
    !lines
      .slice(editedLine - 1, editedLine + 5)
      .join('\n')
      .includes('(prim vec/get p 0)')
  ) {
    throw new Error(`the hand edit is not in the six lines from ${file}:${editedLine} (def ledger/journal::total)`);
  }
});

afterAll(() => {
  repo?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the Action under @github/local-action', () => {
  it('passes an honest rename pull request: outputs, no annotation, the job summary; the bundle agrees', () => {
    const run = runLocalAction(repo.dir, event(honest));
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    // local-action's stub of @actions/core ran, not the real one (which prints info lines bare)
    expect(run.info[0]).toBe(`gcpatch: verifying evidence between ${base} (pull_request.base.sha) and ${honest} (pull_request.head.sha)`);
    expect(run.stdout).toMatch(/Action Outputs[\s\S]*'report-path'/);

    // verdict: no finding (the ledger declares obligations = []: no acceptance to re-run, so no notice)
    expect(run.annotations).toEqual([]);

    // outputs
    expect(Number(run.outputs.verified)).toBeGreaterThan(10);
    expect(run.outputs.failed).toBe('0');
    expect(run.outputs['report-path']).toMatch(/\/gcpatch-pr-audit\.json$/);

    // the JSON report
    expect(run.report.ok).toBe(true);
    expect(run.report.base).toBe(base);
    expect(run.report.head).toBe(honest);
    expect(run.report.verified).toBe(Number(run.outputs.verified));
    const pkg = run.report.packages[0]!;
    expect(run.report.packages.map((p) => p.dir)).toEqual(['ledger']);
    expect(pkg.replay.status).toBe('reproduced');
    expect(pkg.changedModules).toEqual([
      'account/balance.gc',
      'cli/commands.gc',
      'journal/validate.gc',
      'money/amount.gc',
      'report/income.gc',
      'report/summary.gc',
      'report/trial-balance.gc',
      'tests/amount-test.gc',
      'text/unicode.gc',
    ]);
    expect(pkg.unexplainedModules).toEqual([]);

    // the job summary
    expect(run.summary).toMatch(/^<h2>gcpatch: pull request evidence<\/h2>\n/);
    expect(run.summary).toContain(
      `<p><strong>✅ Evidence verified</strong> — ${run.outputs.verified} checks passed, 0 failed; 0 errors, 0 warnings, 0 notices (fail-on: error).</p>`,
    );
    expect(run.summary).toMatch(/<p>\d+ changed paths accounted for.<\/p>/);
    expect(run.summary).toContain(`<code>${base.slice(0, 12)}</code> from pull_request.base.sha`);
    expect(run.summary).toContain('<h3>ledger — ledger</h3>');
    expect(run.summary).toContain('Replay: ✅ 1 apply report replayed commit by commit; 9 changed modules reproduced exactly');
    expect(run.summary).toContain('<td>re-plan</td><td>✅ pass</td>');

    // the bundled Action, as GitHub runs it, gives the same verdict
    const bundle = runAction(repo.dir, { event: event(honest) });
    expect(bundle.status).toBe(0);
    expect(verdict(run.report)).toEqual(verdict(bundle.report!));
    expect({ verified: run.outputs.verified, failed: run.outputs.failed }).toEqual({ verified: bundle.outputs.verified, failed: bundle.outputs.failed });
  });

  it('fails a pull request whose rename hides a hand edit: the error on its file and line, setFailed, the summary; the bundle agrees', () => {
    // an input set in the .env (it overrides the fixture's INPUT_FAIL-ON=error)
    const run = runLocalAction(repo.dir, event(dishonest), { 'fail-on': 'warning' });
    expect(run.report.failOn).toBe('warning');
    // setFailed under local-action records the failure without an exit code: the verdict is in the log
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toBe('');

    const errors = run.annotations.filter((a) => a.kind === 'error');
    expect(errors.map((a) => a.properties.title)).toEqual(['gcpatch: replay differs', undefined]);
    const mismatch = errors[0]!;
    expect(mismatch.properties).toEqual({
      title: 'gcpatch: replay differs',
      file: 'ledger/journal/validate.gc',
      line: String(editedLine),
      endLine: String(editedLine),
    });
    expect(mismatch.message).toMatch(/\[audit\/replay-module-mismatch\]$/);
    // setFailed's line, the step's verdict
    expect(errors[1]!.message).toMatch(/^gcpatch: 1 finding failed verification \(first: .*journal\/validate\.gc/);

    expect(run.outputs.failed).toBe('1');
    expect(Number(run.outputs.verified)).toBeGreaterThan(10);
    expect(run.report.ok).toBe(false);
    expect(run.report.head).toBe(dishonest);
    expect(run.report.findings.filter((f) => f.severity !== 'notice').map((f) => f.code)).toEqual(['audit/replay-module-mismatch']);
    expect(run.report.packages[0]!.replay.status).toBe('differs');
    expect(run.report.packages[0]!.replay.mismatches).toEqual(['journal/validate.gc']);

    expect(run.summary).toContain('❌ Evidence verification failed');
    expect(run.summary).toContain('(fail-on: warning)');
    expect(run.summary).toContain('Replay: ❌ the head differs from the replayed evidence in journal/validate.gc.');
    expect(run.summary).toContain('<td>journal/validate.gc</td><td>module</td><td>replay</td><td>❌ fail</td>');

    const bundle = runAction(repo.dir, { event: event(dishonest), inputs: { 'fail-on': 'warning' } });
    expect(bundle.status).toBe(1);
    expect(verdict(run.report)).toEqual(verdict(bundle.report!));
    expect(bundle.annotations.filter((a) => a.kind === 'error').map((a) => a.message)).toEqual(errors.map((a) => a.message));
  });
});
