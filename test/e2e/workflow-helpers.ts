/**
 * Helpers for the team-workflow tests (test/e2e/workflows-*.test.ts): a template repository holding
 * the 25-module ledger package (fixtures/refactor/ledger) on main with the merge drivers installed
 * (`gcpatch driver install`, this checkout's driver/dist bundle), copied per scenario; the user's
 * moves (`refactor plan` + `refactor apply`, `apply --patch`, `pack`, hand edits) and the verdict of
 * `gcpatch verify-pr --json`. The commands run in-process (test/helpers/run-cli.ts) unless a
 * helper says it spawns; git, and the drivers git starts, are real processes.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { gcpatch, ROOT, tempDir, type RunResult } from '../helpers/cli.js';
import { git, initRepo, tryGit } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

export const PKG = 'ledger';
const dirs: string[] = [];
let template = '';

/**
 * `describe(title, body)` for workflow scenarios (a long timeout: each starts dozens of processes)
 * with a `beforeAll` that checks the bundles exist and makes the template repository, and an
 * `afterAll` that removes every folder these helpers made.
 */
export function describeWorkflows(title: string, body: () => void): void {
  describe(title, { timeout: 300_000 }, () => {
    beforeAll(async () => {
      for (const bundle of ['driver/dist/index.js', 'action/dist/index.js', 'bin/gcpatch.js']) {
        if (!existsSync(join(ROOT, bundle))) throw new Error(`${bundle} is missing: run npm run build, build:driver and build:action first`);
      }
      template = join(tempDir('gcpatch-workflow-template-'), 'repo');
      dirs.push(join(template, '..'));
      mkdirSync(template);
      initRepo(template);
      cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(template, PKG), { recursive: true });
      must(await runCli(['driver', 'install'], { cwd: template }), 'driver install');
      commitAll(template, 'ledger package, merge drivers');
    });
    afterAll(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    body();
  });
}

/** `r`, or an error naming `what` when it did not exit 0. */
export function must(r: RunResult, what: string): RunResult {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return r;
}

/** A fresh copy of the template repository (ledger on main, drivers installed). */
export function repoCopy(): string {
  const dir = join(tempDir('gcpatch-workflow-'), 'repo');
  dirs.push(dir);
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** Stages everything and commits; returns the new commit's oid. */
export function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** `gcpatch refactor plan` then `gcpatch refactor apply`, as a user does. */
async function refactor(repo: string, kind: string, from: string, to: string, target = ''): Promise<void> {
  const plan = must(
    await runCli(['refactor', 'plan', '--kind', kind, '--from', from, '--to', to, ...(target ? ['--target', target] : []), '--pkg', PKG, '--json'], {
      cwd: repo,
    }),
    `refactor plan ${kind} ${from}`,
  );
  const { reportAddress } = JSON.parse(plan.stdout) as { reportAddress: string };
  must(await runCli(['refactor', 'apply', reportAddress, '--pkg', PKG], { cwd: repo }), 'refactor apply');
}

/** `gcpatch apply --patch FILE`: the ledger's name becomes `name` (meta/profile.gc form 1). */
export async function patchName(repo: string, name: string, intent = 'rename the product'): Promise<void> {
  const file = join(tempDir('gcpatch-workflow-patch-'), 'name.gcpatch');
  dirs.push(join(file, '..'));
  writeFileSync(
    file,
    `{:version 1 :intent ${JSON.stringify(intent)} :provenance {}\n` +
      ` :ops [{:op :replace-node :module-path "meta/profile.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new ${JSON.stringify(name)}}]}\n`,
  );
  must(await runCli(['apply', '--patch', file, '--pkg', PKG], { cwd: repo }), 'apply --patch');
}

/** Replaces the first `from` by `to` in the package's file `path` (throws when `from` is not there). */
export function edit(repo: string, path: string, from: string, to: string): void {
  const file = join(repo, PKG, path);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} has no ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** `gcpatch pack` (re-pins the edited modules). */
export async function pack(repo: string): Promise<void> {
  must(await runCli(['pack', '--pkg', PKG], { cwd: repo }), 'pack');
}

/** A hand edit as a user commits it: {@link edit} each `[path, from, to]`, `gcpatch pack`, commit. */
export async function handEdit(repo: string, message: string, ...edits: [path: string, from: string, to: string][]): Promise<string> {
  for (const [path, from, to] of edits) edit(repo, path, from, to);
  await pack(repo);
  return commitAll(repo, message);
}

/** One `verify-pr` verdict: exit code, report, and the codes of its errors and warnings. */
export interface Verdict {
  status: number;
  report: AuditReport;
  errors: string[];
  warnings: string[];
}

function verdict(status: number, report: AuditReport): Verdict {
  return {
    status,
    report,
    errors: report.findings.filter((f) => f.severity === 'error').map((f) => f.code),
    warnings: report.findings.filter((f) => f.severity === 'warning').map((f) => f.code),
  };
}

/** `gcpatch verify-pr --base BASE --head HEAD --json` (in-process; `spawn`: through the built CLI). */
export async function verify(repo: string, base: string, head = 'HEAD', spawn = false): Promise<Verdict> {
  const args = ['verify-pr', '--base', base, '--head', head, '--json'];
  const r = spawn ? gcpatch(args, { cwd: repo }) : await runCli(args, { cwd: repo });
  if (r.status !== 0 && r.status !== 50) throw new Error(`verify-pr exited ${r.status}: ${r.stderr}${r.stdout}`);
  return verdict(r.status, JSON.parse(r.stdout) as AuditReport);
}

/** The verdict `gcpatch verify-pr --json` gives, computed by `auditPullRequest`, the library call the CLI makes. */
export async function verifyInProcess(repo: string, base: string, head = 'HEAD'): Promise<Verdict> {
  // A JSON round trip, as the CLI's --json output is read back in verify().
  const report = JSON.parse(JSON.stringify(await auditPullRequest({ dir: repo, base, head, failOn: 'error', replay: true }))) as AuditReport;
  return verdict(report.ok ? 0 : 50, report);
}

/** The routes of the commits that changed something or carry evidence. */
export function routes(v: Verdict): string[] {
  return v.report.packages[0]!.commits.filter((c) => c.route !== 'unchanged' || c.evidence.length > 0).map((c) => c.route);
}

/** The verdict passes: no errors, exit 0, report ok. */
export function expectPass(v: Verdict): void {
  expect(v.errors).toEqual([]);
  expect(v.status).toBe(0);
  expect(v.report.ok).toBe(true);
}

/** The verdict fails with `code` among its errors, exit 50. */
export function expectFail(v: Verdict, code: string): void {
  expect(v.errors).toContain(code);
  expect(v.status).toBe(50);
  expect(v.report.ok).toBe(false);
}

/** PR 1 (lands on main): a rename inside text/unicode.gc only. */
export const renameEmoji = (repo: string): Promise<void> => refactor(repo, 'rename', 'ledger/text::emoji', 'ledger/text::emoji-label');
/** PR 2: a move touching core/int.gc, cli/args.gc, tests/journal-test.gc and a new core/ord.gc. */
export const moveClamp = (repo: string): Promise<void> => refactor(repo, 'move', 'ledger/int::clamp', 'ledger/ord::clamp', 'core/ord.gc');
/** A rename inside core/pair.gc only. */
export const renameFirst = (repo: string): Promise<void> => refactor(repo, 'rename', 'ledger/pair::first', 'ledger/pair::head');

/** A fresh copy ({@link repoCopy}) on a new branch `branch` from main with {@link renameFirst} committed. */
export async function branchWithRenameFirst(branch: string): Promise<string> {
  const repo = repoCopy();
  git(repo, 'checkout', '-q', '-b', branch);
  await renameFirst(repo);
  commitAll(repo, 'rename pair first');
  return repo;
}

/**
 * `gcpatch audit` on a merged package: exit 50 with `audit/acceptance-stale` (the last acceptance
 * was produced for one side's package record); `gcpatch accept` then links a new acceptance and
 * audit passes. The work tree is reset afterwards (accept writes .genesis/, uncommitted). The
 * stale audit runs through the built CLI (its exit code and stderr).
 */
export async function expectStaleThenAccept(repo: string, what: string): Promise<void> {
  const stale = gcpatch(['audit', '--pkg', PKG], { cwd: repo });
  expect([what, stale.status]).toEqual([what, 50]);
  expect(stale.stderr).toContain('audit/acceptance-stale');
  expect(stale.stderr).toContain('changed since: ');
  must(await runCli(['accept', '--pkg', PKG], { cwd: repo }), `${what}: accept`);
  must(await runCli(['audit', '--pkg', PKG], { cwd: repo }), `${what}: audit after accept`);
  git(repo, 'checkout', '-q', '--', '.');
  git(repo, 'clean', '-fdq');
}

/** `git merge` that may conflict: returns its exit status (0 clean, 1 conflicts); throws on any other failure. */
export function spawnMerge(repo: string, rev: string): number {
  const r = tryGit(repo, ['merge', '-q', '--no-edit', rev]);
  if (r.status !== 0 && r.status !== 1) throw new Error(`git merge ${rev} exited ${r.status}: ${r.stderr}`);
  return r.status;
}
