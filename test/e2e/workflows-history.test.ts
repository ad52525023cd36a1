/**
 * End-to-end: team workflows on the 25-module ledger package (fixtures/refactor/ledger) with the merge
 * drivers installed, the CLI and the bundled Action (action/dist) — history as a team makes it:
 * merge main into a PR, rebase, resolve a conflict to one side, cherry-pick, hand edits before a
 * refactor. Each scenario asserts the verdict of `gcpatch verify-pr` (and of `gcpatch audit` where
 * named): honest work passes, dishonest work fails. The helpers and the template repository are in
 * test/e2e/workflow-helpers.ts; test/e2e/workflows-evidence.test.ts has the evidence scenarios.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { pullRequestEvent, runAction } from '../action/helpers.js';
import { git } from '../helpers/git.js';
import {
  branchWithRenameFirst,
  commitAll,
  describeWorkflows,
  edit,
  expectFail,
  expectPass,
  expectStaleThenAccept,
  handEdit,
  moveClamp,
  pack,
  patchName,
  PKG,
  renameEmoji,
  renameFirst,
  repoCopy,
  routes,
  spawnMerge,
  verify,
} from './workflow-helpers.js';

describeWorkflows('verify-pr follows history (real git, drivers installed)', () => {
  it('a PR merging main, rebased onto main, and main after it lands; the Action agrees', async () => {
    const repo = repoCopy();
    const main0 = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'pr2');
    await moveClamp(repo);
    commitAll(repo, 'move clamp to core/ord.gc');
    // PR not updated
    const notUpdated = await verify(repo, 'main', 'HEAD', true);
    expectPass(notUpdated);
    expect(routes(notUpdated)).toEqual(['evidence']);

    // PR 1 lands on main (a rename of other modules)
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'checkout', '-q', '-b', 'pr1');
    await renameEmoji(repo);
    commitAll(repo, 'rename emoji');
    expectPass(await verify(repo, main0));
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge pr1', 'pr1');

    // PR 2 rebased onto main (a copy of the branch)
    git(repo, 'branch', 'pr2-rebased', 'pr2');
    git(repo, 'checkout', '-q', 'pr2-rebased');
    git(repo, 'rebase', '-q', 'main');
    const rebased = await verify(repo, 'main');
    expectPass(rebased);
    expect(routes(rebased)).toEqual(['evidence-on-new-parent']);
    expect(rebased.report.packages[0]!.commits.at(-1)!.evidence.every((e) => e.route === 'actual-parent')).toBe(true);

    // PR 2 merges main (clean)
    git(repo, 'checkout', '-q', 'pr2');
    git(repo, 'merge', '-q', '--no-edit', 'main');
    const merged = await verify(repo, 'main');
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
    expectPass(await verify(repo, 'main^1', 'main'));
    // the merged package is neither side's: the last acceptance is for another package record
    // until the obligations run on it as it is (gcpatch accept)
    await expectStaleThenAccept(repo, 'audit on main');
  });

  it('a PR whose rename meets a new use of the old name merged in from main fails (stale reference); the rebase fails too', async () => {
    const repo = await branchWithRenameFirst('pr');
    git(repo, 'checkout', '-q', 'main');
    const list = join(repo, PKG, 'core/list.gc');
    writeFileSync(list, readFileSync(list, 'utf8') + '\n(def ledger/list::first-of (fn (p) (ledger/pair::first p)))\n');
    await pack(repo);
    commitAll(repo, 'a new use of ledger/pair::first');
    git(repo, 'checkout', '-q', 'pr');
    expect(spawnMerge(repo, 'main')).toBe(0); // different modules: git and the drivers merge cleanly
    const v = await verify(repo, 'main');
    expectFail(v, 'audit/refactor-stale-reference');
    const stale = v.report.findings.find((f) => f.code === 'audit/refactor-stale-reference')!;
    expect(stale.file).toBe(`${PKG}/core/list.gc`);
    expect(stale.message).toContain('ledger/pair::first');
    // the same content by rebase is caught by the re-plan
    git(repo, 'checkout', '-q', '-b', 'pr-rebased', 'pr^1');
    git(repo, 'rebase', '-q', 'main');
    expect(git(repo, 'rev-parse', 'HEAD^')).toBe(git(repo, 'rev-parse', 'main'));
    expect((await verify(repo, 'main')).status).toBe(50);
  });

  it('a PR merging main with a conflict resolved to one side', async () => {
    const repo = await branchWithRenameFirst('pr');
    await handEdit(repo, 'a longer café', ['text/unicode.gc', '"café ☕"', '"café au lait ☕"']);
    git(repo, 'checkout', '-q', 'main');
    await handEdit(repo, 'espresso', ['text/unicode.gc', '"café ☕"', '"espresso ☕"']);
    git(repo, 'checkout', '-q', 'pr');
    const r = spawnMerge(repo, 'main');
    expect(r).not.toBe(0); // the two hand edits of one string conflict
    git(repo, 'checkout', '--ours', '--', `${PKG}/text/unicode.gc`, `${PKG}/package.toml`);
    await pack(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '--no-edit');
    const v = await verify(repo, 'main');
    expectPass(v);
    expect(routes(v)).toEqual(['evidence', 'unexplained', 'merge']);
  });

  it('cherry-picks of an apply commit and of a refactor commit onto a release branch', async () => {
    const repo = repoCopy();
    const main0 = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'feature');
    await renameFirst(repo);
    const refactorCommit = commitAll(repo, 'rename pair first');
    await patchName(repo, 'ledger-pro');
    const applyCommit = commitAll(repo, 'rename the product');
    expectPass(await verify(repo, main0));

    git(repo, 'checkout', '-q', '-b', 'release', main0);
    edit(repo, 'package.toml', 'version = "0.3.1"', 'version = "0.3.2"');
    const release0 = commitAll(repo, 'release 0.3.2');
    git(repo, 'cherry-pick', applyCommit);
    // the acceptance entry existed on the source branch before the apply commit: not in the commit
    const picked = await verify(repo, release0);
    expectPass(picked);
    expect(routes(picked)).toEqual(['evidence-on-new-parent']);
    git(repo, 'cherry-pick', refactorCommit);
    const both = await verify(repo, release0);
    expectPass(both);
    expect(routes(both)).toEqual(['evidence-on-new-parent', 'evidence-on-new-parent']);
  });

  it('a hand edit, or a hand version bump, committed before a refactor', async () => {
    const repo = repoCopy();
    git(repo, 'checkout', '-q', '-b', 'edit-first');
    await handEdit(
      repo,
      'hand edit',
      ['core/pair.gc', '; Pairs as two-element vectors.', '; Pairs: two-element vectors.'],
      ['text/unicode.gc', '"café ☕"', '"café crème ☕"'],
    );
    await renameFirst(repo);
    commitAll(repo, 'rename pair first');
    const edited = await verify(repo, 'main');
    expectPass(edited);
    expect(edited.warnings).toEqual(['audit/unexplained-change']);

    git(repo, 'checkout', '-q', '-b', 'bump-first', 'main');
    edit(repo, 'package.toml', 'version = "0.3.1"', 'version = "0.4.0"');
    commitAll(repo, 'bump the version');
    await moveClamp(repo);
    commitAll(repo, 'move clamp');
    const bumped = await verify(repo, 'main');
    expectPass(bumped);
    expect(bumped.warnings).toEqual([]);
  });
});
