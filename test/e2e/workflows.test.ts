/**
 * End-to-end: team workflows on the 25-module ledger package (fixtures/refactor/ledger) with the merge
 * drivers installed (`gcpatch driver install`, this checkout's driver/dist bundle), the built CLI and
 * the bundled Action (action/dist). Each scenario makes history the way a team does — merge main into
 * a PR, rebase, squash, cherry-pick, revert — and asserts the verdict of `gcpatch verify-pr` (and of
 * `gcpatch audit` where named): honest work passes, dishonest work fails. Where a scenario needs many
 * verdicts, one comes from the CLI and the rest from `auditPullRequest`, the library call it makes.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/verify-pr/findings.js';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { gcpatch, ROOT, tempDir, type RunResult } from '../helpers/cli.js';
import { git, initRepo, tryGit } from '../helpers/git.js';
import { pullRequestEvent, runAction } from '../action/helpers.js';

const PKG = 'ledger';
const dirs: string[] = [];
let template = '';

function must(r: RunResult, what: string): RunResult {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return r;
}

/** A fresh copy of the template repository (ledger on main, drivers installed). */
function repoCopy(): string {
  const dir = join(tempDir('gcpatch-workflow-'), 'repo');
  dirs.push(dir);
  cpSync(template, dir, { recursive: true });
  return dir;
}

function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** `gcpatch refactor plan` then `gcpatch refactor apply`, as a user does. */
function refactor(repo: string, kind: string, from: string, to: string, target = ''): void {
  const plan = must(
    gcpatch(['refactor', 'plan', '--kind', kind, '--from', from, '--to', to, ...(target ? ['--target', target] : []), '--pkg', PKG, '--json'], { cwd: repo }),
    `refactor plan ${kind} ${from}`,
  );
  const { reportAddress } = JSON.parse(plan.stdout) as { reportAddress: string };
  must(gcpatch(['refactor', 'apply', reportAddress, '--pkg', PKG], { cwd: repo }), 'refactor apply');
}

/** `gcpatch apply --patch FILE`: the ledger's name becomes `name` (meta/profile.gc form 1). */
function patchName(repo: string, name: string, intent = 'rename the product'): void {
  const file = join(tempDir('gcpatch-workflow-patch-'), 'name.gcpatch');
  dirs.push(join(file, '..'));
  writeFileSync(
    file,
    `{:version 1 :intent ${JSON.stringify(intent)} :provenance {}\n` +
      ` :ops [{:op :replace-node :module-path "meta/profile.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new ${JSON.stringify(name)}}]}\n`,
  );
  must(gcpatch(['apply', '--patch', file, '--pkg', PKG], { cwd: repo }), 'apply --patch');
}

function edit(repo: string, path: string, from: string, to: string): void {
  const file = join(repo, PKG, path);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} has no ${from}`);
  writeFileSync(file, text.replace(from, to));
}

function pack(repo: string): void {
  must(gcpatch(['pack', '--pkg', PKG], { cwd: repo }), 'pack');
}

interface Verdict {
  status: number;
  report: AuditReport;
  errors: string[];
  warnings: string[];
}

function verify(repo: string, base: string, head = 'HEAD'): Verdict {
  const r = gcpatch(['verify-pr', '--base', base, '--head', head, '--json'], { cwd: repo });
  if (r.status !== 0 && r.status !== 50) throw new Error(`verify-pr exited ${r.status}: ${r.stderr}${r.stdout}`);
  const report = JSON.parse(r.stdout) as AuditReport;
  return {
    status: r.status,
    report,
    errors: report.findings.filter((f) => f.severity === 'error').map((f) => f.code),
    warnings: report.findings.filter((f) => f.severity === 'warning').map((f) => f.code),
  };
}

/** The verdict `gcpatch verify-pr --json` gives, computed in-process (`auditPullRequest`, as the CLI calls it). */
async function verifyInProcess(repo: string, base: string, head = 'HEAD'): Promise<Verdict> {
  // A JSON round trip, as the CLI's --json output is read back in verify().
  const report = JSON.parse(JSON.stringify(await auditPullRequest({ dir: repo, base, head, failOn: 'error', replay: true }))) as AuditReport;
  return {
    status: report.ok ? 0 : 50,
    report,
    errors: report.findings.filter((f) => f.severity === 'error').map((f) => f.code),
    warnings: report.findings.filter((f) => f.severity === 'warning').map((f) => f.code),
  };
}

function routes(v: Verdict): string[] {
  return v.report.packages[0]!.commits.filter((c) => c.route !== 'unchanged' || c.evidence.length > 0).map((c) => c.route);
}

function expectPass(v: Verdict): void {
  expect(v.errors).toEqual([]);
  expect(v.status).toBe(0);
  expect(v.report.ok).toBe(true);
}

function expectFail(v: Verdict, code: string): void {
  expect(v.errors).toContain(code);
  expect(v.status).toBe(50);
  expect(v.report.ok).toBe(false);
}

/** PR 1 (lands on main): a rename inside text/unicode.gc only. */
const renameEmoji = (repo: string) => refactor(repo, 'rename', 'ledger/text::emoji', 'ledger/text::emoji-label');
/** PR 2: a move touching core/int.gc, cli/args.gc, tests/journal-test.gc and a new core/ord.gc. */
const moveClamp = (repo: string) => refactor(repo, 'move', 'ledger/int::clamp', 'ledger/ord::clamp', 'core/ord.gc');
/** A rename inside core/pair.gc only. */
const renameFirst = (repo: string) => refactor(repo, 'rename', 'ledger/pair::first', 'ledger/pair::head');

beforeAll(() => {
  for (const bundle of ['driver/dist/index.js', 'action/dist/index.js', 'bin/gcpatch.js']) {
    if (!existsSync(join(ROOT, bundle))) throw new Error(`${bundle} is missing: run npm run build, build:driver and build:action first`);
  }
  template = join(tempDir('gcpatch-workflow-template-'), 'repo');
  dirs.push(join(template, '..'));
  mkdirSync(template);
  initRepo(template);
  cpSync(join(ROOT, 'fixtures/refactor/ledger'), join(template, PKG), { recursive: true });
  must(gcpatch(['driver', 'install'], { cwd: template }), 'driver install');
  commitAll(template, 'ledger package, merge drivers');
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('verify-pr follows history (real git, drivers installed)', { timeout: 300_000 }, () => {
  it('a PR merging main, rebased onto main, and main after it lands; the Action agrees', () => {
    const repo = repoCopy();
    const main0 = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'pr2');
    moveClamp(repo);
    commitAll(repo, 'move clamp to core/ord.gc');
    // PR not updated
    const notUpdated = verify(repo, 'main');
    expectPass(notUpdated);
    expect(routes(notUpdated)).toEqual(['evidence']);

    // PR 1 lands on main (a rename of other modules)
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'checkout', '-q', '-b', 'pr1');
    renameEmoji(repo);
    commitAll(repo, 'rename emoji');
    expectPass(verify(repo, main0));
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge pr1', 'pr1');

    // PR 2 rebased onto main (a copy of the branch)
    git(repo, 'branch', 'pr2-rebased', 'pr2');
    git(repo, 'checkout', '-q', 'pr2-rebased');
    git(repo, 'rebase', '-q', 'main');
    const rebased = verify(repo, 'main');
    expectPass(rebased);
    expect(routes(rebased)).toEqual(['evidence-on-new-parent']);
    expect(rebased.report.packages[0]!.commits.at(-1)!.evidence.every((e) => e.route === 'actual-parent')).toBe(true);

    // PR 2 merges main (clean)
    git(repo, 'checkout', '-q', 'pr2');
    git(repo, 'merge', '-q', '--no-edit', 'main');
    const merged = verify(repo, 'main');
    expectPass(merged);
    expect(merged.warnings).toEqual([]);
    expect(routes(merged)).toEqual(['evidence', 'merge']);
    const action = runAction(repo, { event: pullRequestEvent(git(repo, 'rev-parse', 'main'), git(repo, 'rev-parse', 'pr2')) });
    expect(action.status).toBe(0);
    expect(action.report!.ok).toBe(true);
    expect(action.summary).toContain('the structural merge of its parents');

    // main's push check after PR 2 lands
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge pr2', 'pr2');
    expectPass(verify(repo, 'main^1', 'main'));
    // the merged package is neither side's: the last acceptance is for another package record
    // until the obligations run on it as it is (gcpatch accept)
    expectStaleThenAccept(repo, 'audit on main');
  });

  it('a PR whose rename meets a new use of the old name merged in from main fails (stale reference); the rebase fails too', () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'pr');
    renameFirst(repo);
    commitAll(repo, 'rename pair first');
    git(repo, 'checkout', '-q', 'main');
    const list = join(repo, PKG, 'core/list.gc');
    writeFileSync(list, readFileSync(list, 'utf8') + '\n(def ledger/list::first-of (fn (p) (ledger/pair::first p)))\n');
    pack(repo);
    commitAll(repo, 'a new use of ledger/pair::first');
    git(repo, 'checkout', '-q', 'pr');
    expect(spawnMerge(repo, 'main')).toBe(0); // different modules: git and the drivers merge cleanly
    const v = verify(repo, 'main');
    expectFail(v, 'audit/refactor-stale-reference');
    const stale = v.report.findings.find((f) => f.code === 'audit/refactor-stale-reference')!;
    expect(stale.file).toBe(`${PKG}/core/list.gc`);
    expect(stale.message).toContain('ledger/pair::first');
    // the same content by rebase is caught by the re-plan
    git(repo, 'checkout', '-q', '-b', 'pr-rebased', 'pr^1');
    git(repo, 'rebase', '-q', 'main');
    expect(git(repo, 'rev-parse', 'HEAD^')).toBe(git(repo, 'rev-parse', 'main'));
    expect(verify(repo, 'main').status).toBe(50);
  });

  it('a PR merging main with a conflict resolved to one side', () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'pr');
    renameFirst(repo);
    commitAll(repo, 'rename pair first');
    edit(repo, 'text/unicode.gc', '"café ☕"', '"café au lait ☕"');
    pack(repo);
    commitAll(repo, 'a longer café');
    git(repo, 'checkout', '-q', 'main');
    edit(repo, 'text/unicode.gc', '"café ☕"', '"espresso ☕"');
    pack(repo);
    commitAll(repo, 'espresso');
    git(repo, 'checkout', '-q', 'pr');
    const r = spawnMerge(repo, 'main');
    expect(r).not.toBe(0); // the two hand edits of one string conflict
    git(repo, 'checkout', '--ours', '--', `${PKG}/text/unicode.gc`, `${PKG}/package.toml`);
    pack(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '--no-edit');
    const v = verify(repo, 'main');
    expectPass(v);
    expect(routes(v)).toEqual(['evidence', 'unexplained', 'merge']);
  });

  it('two refactors and a .gcpatch in one PR pass whatever the order of their evidence addresses; so does the squash', async () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'feature');
    renameFirst(repo);
    commitAll(repo, 'rename pair first');
    moveClamp(repo);
    commitAll(repo, 'move clamp');
    const refactored = git(repo, 'rev-parse', 'HEAD');
    // The .gcpatch also applies to the base, so a replay in store-address order could take it first.
    // Intents are tried until the patch's apply report has sorted both first and last of the three
    // (addresses are content hashes, so which intents do it is deterministic but depends on every
    // evidence byte; searching keeps the test meaningful when the report format changes).
    const positions = new Set<number>();
    const branches: string[] = [];
    for (let i = 0; i < 16 && !(positions.has(0) && positions.has(2)); i++) {
      const branch = `variant-${i}`;
      git(repo, 'checkout', '-q', '-b', branch, refactored);
      patchName(repo, 'ledger-pro', `rename the product (${i})`);
      commitAll(repo, 'rename the product');
      // The first verdict from the CLI, the others in-process.
      const v = i === 0 ? verify(repo, 'main') : await verifyInProcess(repo, 'main');
      expectPass(v);
      const applied = v.report.packages[0]!.replay.applied;
      expect(applied).toHaveLength(3);
      const position = [...applied].sort().indexOf(applied[2]!);
      if (position === 0 || position === 2) {
        if (!positions.has(position)) branches.push(branch);
        positions.add(position);
      }
    }
    expect(positions.has(0) && positions.has(2)).toBe(true);

    // squash of the PR onto main after main moved on: verify-pr and audit on main; the Action agrees
    git(repo, 'checkout', '-q', 'main');
    renameEmoji(repo);
    commitAll(repo, 'rename emoji (another PR)');
    git(repo, 'merge', '-q', '--squash', branches[0]!);
    git(repo, 'commit', '-q', '-m', 'feature (squashed)');
    const squash = verify(repo, 'main^', 'main');
    expectPass(squash);
    expect(routes(squash)).toEqual(['evidence-on-new-parent']);
    expect(squash.report.packages[0]!.replay.applied).toHaveLength(3);
    expectStaleThenAccept(repo, 'audit after the squash');
    const action = runAction(repo, { event: pullRequestEvent(git(repo, 'rev-parse', 'main^'), git(repo, 'rev-parse', 'main')) });
    expect(action.status).toBe(0);
    expect(action.report!.ok).toBe(true);
  });

  it('cherry-picks of an apply commit and of a refactor commit onto a release branch', () => {
    const repo = repoCopy();
    const main0 = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'feature');
    renameFirst(repo);
    const refactorCommit = commitAll(repo, 'rename pair first');
    patchName(repo, 'ledger-pro');
    const applyCommit = commitAll(repo, 'rename the product');
    expectPass(verify(repo, main0));

    git(repo, 'checkout', '-q', '-b', 'release', main0);
    edit(repo, 'package.toml', 'version = "0.3.1"', 'version = "0.3.2"');
    const release0 = commitAll(repo, 'release 0.3.2');
    git(repo, 'cherry-pick', applyCommit);
    // the acceptance entry existed on the source branch before the apply commit: not in the commit
    const picked = verify(repo, release0);
    expectPass(picked);
    expect(routes(picked)).toEqual(['evidence-on-new-parent']);
    git(repo, 'cherry-pick', refactorCommit);
    const both = verify(repo, release0);
    expectPass(both);
    expect(routes(both)).toEqual(['evidence-on-new-parent', 'evidence-on-new-parent']);
  });

  it('a hand edit, or a hand version bump, committed before a refactor', () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'edit-first');
    edit(repo, 'core/pair.gc', '; Pairs as two-element vectors.', '; Pairs: two-element vectors.');
    edit(repo, 'text/unicode.gc', '"café ☕"', '"café crème ☕"');
    pack(repo);
    commitAll(repo, 'hand edit');
    renameFirst(repo);
    commitAll(repo, 'rename pair first');
    const edited = verify(repo, 'main');
    expectPass(edited);
    expect(edited.warnings).toEqual(['audit/unexplained-change']);

    git(repo, 'checkout', '-q', '-b', 'bump-first', 'main');
    edit(repo, 'package.toml', 'version = "0.3.1"', 'version = "0.4.0"');
    commitAll(repo, 'bump the version');
    moveClamp(repo);
    commitAll(repo, 'move clamp');
    const bumped = verify(repo, 'main');
    expectPass(bumped);
    expect(bumped.warnings).toEqual([]);
  });

  it('a revert of an evidence commit gives warnings only', () => {
    const repo = repoCopy();
    renameFirst(repo);
    const evidence = commitAll(repo, 'rename pair first');
    git(repo, 'checkout', '-q', '-b', 'revert');
    git(repo, 'revert', '--no-edit', evidence);
    const v = verify(repo, 'main');
    expect(v.errors).toEqual([]);
    expect(v.status).toBe(0);
    expect(v.warnings).toContain('audit/unexplained-change');
    expect(v.warnings).toContain('audit/store-entry-removed');
    // a revert inside the same PR: warnings only, too
    git(repo, 'checkout', '-q', '-b', 'inside', 'main~1');
    renameFirst(repo);
    const inside = commitAll(repo, 'rename pair first');
    git(repo, 'revert', '--no-edit', inside);
    const v2 = verify(repo, 'main~1');
    expect(v2.errors).toEqual([]);
    expect(v2.status).toBe(0);
  });

  it('a hidden edit after a refactor, and a merge commit that slips an edit into a refactored module, fail; the Action agrees', () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'hidden');
    renameFirst(repo);
    commitAll(repo, 'rename pair first');
    edit(repo, 'core/pair.gc', '(prim vec/get p 1)', '(prim vec/get p 0)');
    pack(repo);
    commitAll(repo, 'tidy');
    const hidden = verify(repo, 'main');
    expectFail(hidden, 'audit/replay-module-mismatch');
    const f = hidden.report.findings.find((x) => x.code === 'audit/replay-module-mismatch')!;
    expect(f.file).toBe(`${PKG}/core/pair.gc`);
    const editedLine = readFileSync(join(repo, PKG, 'core/pair.gc'), 'utf8').split('\n').findIndex((l) => l.includes('ledger/pair::second')  && !l.includes(':exports')) + 1;
    expect(f.line).toBe(editedLine);
    const action = runAction(repo, { event: pullRequestEvent(git(repo, 'rev-parse', 'main'), git(repo, 'rev-parse', 'hidden')) });
    expect(action.status).toBe(1);
    expect(action.report!.ok).toBe(false);
    expect(action.annotations.some((a) => a.kind === 'error' && a.properties.file === `${PKG}/core/pair.gc` && a.properties.line === String(editedLine))).toBe(true);

    git(repo, 'checkout', '-q', 'main');
    renameEmoji(repo);
    commitAll(repo, 'rename emoji');
    git(repo, 'checkout', '-q', '-b', 'sneaky', 'hidden~1');
    git(repo, 'merge', '-q', '--no-commit', 'main');
    edit(repo, 'core/pair.gc', '(prim vec/get p 1)', '(prim vec/get p 0)');
    pack(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '--no-edit');
    const sneaky = verify(repo, 'main');
    expectFail(sneaky, 'audit/replay-module-mismatch');
    expect(routes(sneaky)).toEqual(['evidence', 'unexplained']);
  });

  it('obligations: a PR dropping a declared obligation by hand fails; audit fails when the last acceptance does not cover one', () => {
    const repo = repoCopy();
    edit(repo, 'package.toml', 'obligations = []', 'obligations = ["ledger/tests::balanced"]');
    commitAll(repo, 'declare an obligation');
    git(repo, 'checkout', '-q', '-b', 'drop');
    edit(repo, 'package.toml', 'obligations = ["ledger/tests::balanced"]', 'obligations = []');
    commitAll(repo, 'drop the obligation');
    const dropped = verify(repo, 'main');
    expectFail(dropped, 'audit/obligations-weakened');
    expect(dropped.report.findings.find((f) => f.code === 'audit/obligations-weakened')!.message).toContain('ledger/tests::balanced');
    edit(repo, 'package.toml', 'tests = [\n    "ledger/tests::amount-suite",\n', 'tests = [\n');
    commitAll(repo, 'drop a test suite');
    expect(verify(repo, 'main').report.findings.filter((f) => f.code === 'audit/obligations-weakened')).toHaveLength(2);

    // audit: the last acceptance (made with no obligations) does not cover one declared later
    git(repo, 'checkout', '-q', '-b', 'audit', 'main~1');
    patchName(repo, 'ledger-pro');
    commitAll(repo, 'rename the product');
    expect(gcpatch(['audit', '--pkg', PKG], { cwd: repo }).status).toBe(0);
    edit(repo, 'package.toml', 'obligations = []', 'obligations = ["ledger/tests::balanced"]');
    commitAll(repo, 'declare an obligation');
    expect(gcpatch(['audit', '--pkg', PKG], { cwd: repo }).status).toBe(50);
  });
});

/**
 * `gcpatch audit` on a merged package: exit 50 with `audit/acceptance-stale` (the last acceptance
 * was produced for one side's package record); `gcpatch accept` then links a new acceptance and
 * audit passes. The work tree is reset afterwards (accept writes .genesis/, uncommitted).
 */
function expectStaleThenAccept(repo: string, what: string): void {
  const stale = gcpatch(['audit', '--pkg', PKG], { cwd: repo });
  expect([what, stale.status]).toEqual([what, 50]);
  expect(stale.stderr).toContain('audit/acceptance-stale');
  expect(stale.stderr).toContain('changed since: ');
  must(gcpatch(['accept', '--pkg', PKG], { cwd: repo }), `${what}: accept`);
  must(gcpatch(['audit', '--pkg', PKG], { cwd: repo }), `${what}: audit after accept`);
  git(repo, 'checkout', '-q', '--', '.');
  git(repo, 'clean', '-fdq');
}

/** `git merge` that may conflict: returns its exit status (0 clean, 1 conflicts); throws on any other failure. */
function spawnMerge(repo: string, rev: string): number {
  const r = tryGit(repo, ['merge', '-q', '--no-edit', rev]);
  if (r.status !== 0 && r.status !== 1) throw new Error(`git merge ${rev} exited ${r.status}: ${r.stderr}`);
  return r.status;
}
