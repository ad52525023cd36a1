// Helpers for the Action tests: real temporary git repositories holding GenesisCode packages and
// the evidence gcpatch produces, and a runner for the bundled action/dist/index.js as GitHub runs it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planRefactor } from '../../src/refactor/plan.js';
import { loadRefactorRequest } from '../../src/refactor/request.js';
import { applyRefactorPlan, type ApplyPlanResult } from '../../src/refactor/apply-plan.js';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ACTION = join(ROOT, 'action/dist/index.js');
export const FIXTURES = join(ROOT, 'fixtures/action');

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.invalid',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs git in `cwd` and returns its trimmed stdout; throws with stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A new temporary directory. */
export function tempDir(prefix = 'gcpatch-action-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `git init -b main` in a new temp dir with user.name/email set. */
export function initRepo(): string {
  const dir = tempDir('gcpatch-action-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Test Author');
  git(dir, 'config', 'user.email', 'author@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  return dir;
}

/** Stages everything and commits; returns the new commit's SHA. */
export function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** Copies the `fixtures/action/shop` package to `<repo>/<at>`. */
export function addShopPackage(repo: string, at = 'pkgs/shop'): string {
  const dir = join(repo, at);
  cpSync(join(FIXTURES, 'shop'), dir, { recursive: true });
  return dir;
}

/** Plans a rename with the library (as `gcpatch refactor plan` does) and applies it (`gcpatch refactor apply`). */
export function renameInPackage(pkgDir: string, fromSymbol: string, toSymbol: string): ApplyPlanResult {
  const { request } = loadRefactorRequest(pkgDir, { refactorKind: 'rename', fromSymbol, toSymbol });
  const plan = planRefactor(request);
  if (!plan.safe) throw new Error(`rename ${fromSymbol} → ${toSymbol} is conflicted`);
  return applyRefactorPlan({ pkg: pkgDir, report: plan.report, request });
}

/**
 * A repository with the shop package on `main` and a branch `rename-total` that renames
 * `shop/price::total` to `shop/price::gross` with evidence; the branch is checked out.
 * @returns the repo, the package dir and the base/head SHAs.
 */
export function honestRenamePr(): { repo: string; pkg: string; base: string; head: string; evidence: ApplyPlanResult } {
  const repo = initRepo();
  const pkg = addShopPackage(repo);
  writeFileSync(join(repo, 'README.md'), '# shop\n');
  const base = commitAll(repo, 'shop package');
  git(repo, 'checkout', '-q', '-b', 'rename-total');
  const evidence = renameInPackage(pkg, 'shop/price::total', 'shop/price::gross');
  const head = commitAll(repo, 'rename shop/price::total to shop/price::gross');
  return { repo, pkg, base, head, evidence };
}

/** Writes a pull_request event payload (from fixtures/action/pull_request.json) for base/head. */
export function pullRequestEvent(base: string, head: string): string {
  const text = readFileSync(join(FIXTURES, 'pull_request.json'), 'utf8').replace('BASE_SHA', base).replace('HEAD_SHA', head);
  const file = join(tempDir('gcpatch-event-'), 'event.json');
  writeFileSync(file, text);
  return file;
}

/** What one run of the bundled Action produced. */
export interface ActionRun {
  status: number;
  stdout: string;
  stderr: string;
  /** Parsed `$GITHUB_OUTPUT`. */
  outputs: Record<string, string>;
  /** `$GITHUB_STEP_SUMMARY` contents. */
  summary: string;
  /** The JSON report at `outputs['report-path']`, when written. */
  report: AuditReport | undefined;
  /** `::error …::` / `::warning …::` / `::notice …::` workflow commands printed. */
  annotations: { kind: string; properties: Record<string, string>; message: string }[];
  millis: number;
}

/** Parses the `name<<DELIM\nvalue\nDELIM` records @actions/core appends to `$GITHUB_OUTPUT`. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i]!);
    if (m === null) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

function parseAnnotations(stdout: string): ActionRun['annotations'] {
  const out: ActionRun['annotations'] = [];
  for (const line of stdout.split('\n')) {
    const m = /^::(error|warning|notice)( [^:]*)?::(.*)$/.exec(line);
    if (m === null) continue;
    const properties: Record<string, string> = {};
    for (const part of (m[2] ?? '').trim().split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) properties[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1));
    }
    out.push({ kind: m[1]!, properties, message: decodeURIComponent(m[3]!) });
  }
  return out;
}

/**
 * Runs `node action/dist/index.js` in `workspace` the way the runner does: `INPUT_*` variables
 * (hyphens kept, e.g. `INPUT_FAIL-ON`), `GITHUB_EVENT_PATH`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`,
 * `GITHUB_WORKSPACE`, `RUNNER_TEMP`.
 * @param inputs input name → value (`'fail-on': 'warning'`).
 */
export function runAction(
  workspace: string,
  options: { event?: string; inputs?: Record<string, string>; eventName?: string; env?: Record<string, string> } = {},
): ActionRun {
  const tmp = tempDir('gcpatch-runner-');
  const outputFile = join(tmp, 'github_output');
  const summaryFile = join(tmp, 'step_summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('INPUT_') && !k.startsWith('GITHUB_')) env[k] = v;
  Object.assign(env, {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: options.eventName ?? 'pull_request',
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: tmp,
    INPUT_PACKAGES: '**/package.toml',
    'INPUT_BASE-REF': '',
    'INPUT_HEAD-REF': '',
    'INPUT_FAIL-ON': 'error',
    INPUT_REPLAY: 'true',
    'INPUT_OBLIGATION-RUNNER': '',
  });
  if (options.event !== undefined) env.GITHUB_EVENT_PATH = options.event;
  for (const [k, v] of Object.entries(options.inputs ?? {})) env[`INPUT_${k.replace(/ /g, '_').toUpperCase()}`] = v;
  Object.assign(env, options.env ?? {});
  const start = performance.now();
  const r = spawnSync(process.execPath, [ACTION], { cwd: workspace, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const millis = performance.now() - start;
  const outputs = existsSync(env.GITHUB_OUTPUT!) ? parseOutputs(readFileSync(env.GITHUB_OUTPUT!, 'utf8')) : {};
  const reportPath = outputs['report-path'];
  let report: AuditReport | undefined;
  if (reportPath !== undefined && reportPath !== '') report = JSON.parse(readFileSync(reportPath, 'utf8')) as AuditReport;
  const run: ActionRun = {
    status: r.status ?? -1,
    stdout: r.stdout,
    stderr: r.stderr,
    outputs,
    summary: existsSync(env.GITHUB_STEP_SUMMARY!) ? readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8') : '',
    report,
    annotations: parseAnnotations(r.stdout),
    millis,
  };
  rmSync(tmp, { recursive: true, force: true });
  return run;
}
