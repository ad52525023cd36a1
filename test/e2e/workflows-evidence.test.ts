/**
 * End-to-end: team workflows on the 25-module ledger package (fixtures/refactor/ledger) with the merge
 * drivers installed, the CLI and the bundled Action (action/dist) — the evidence itself: two refactors
 * and a .gcpatch in any address order and their squash, reverts, hidden edits after a refactor and in
 * a merge, and obligations. Each scenario asserts the verdict of `gcpatch verify-pr` (and of `gcpatch
 * audit` where named); where one needs many verdicts, one comes from the built CLI and the rest from
 * `auditPullRequest`, the library call it makes. Helpers: test/e2e/workflow-helpers.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { pullRequestEvent, runAction } from '../action/helpers.js';
import { git } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
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
  verify,
  verifyInProcess,
} from './workflow-helpers.js';

describeWorkflows('verify-pr judges the evidence (real git, drivers installed)', () => {
  it('two refactors and a .gcpatch in one PR pass whatever the order of their evidence addresses; so does the squash', async () => {
    const repo = await branchWithRenameFirst('feature');
    await moveClamp(repo);
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
      await patchName(repo, 'ledger-pro', `rename the product (${i})`);
      commitAll(repo, 'rename the product');
      // The first verdict from the built CLI, the others from the library call.
      const v = i === 0 ? await verify(repo, 'main', 'HEAD', true) : await verifyInProcess(repo, 'main');
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
    await renameEmoji(repo);
    commitAll(repo, 'rename emoji (another PR)');
    git(repo, 'merge', '-q', '--squash', branches[0]!);
    git(repo, 'commit', '-q', '-m', 'feature (squashed)');
    const squash = await verify(repo, 'main^', 'main');
    expectPass(squash);
    expect(routes(squash)).toEqual(['evidence-on-new-parent']);
    expect(squash.report.packages[0]!.replay.applied).toHaveLength(3);
    await expectStaleThenAccept(repo, 'audit after the squash');
    const action = runAction(repo, { event: pullRequestEvent(git(repo, 'rev-parse', 'main^'), git(repo, 'rev-parse', 'main')) });
    expect(action.status).toBe(0);
    expect(action.report!.ok).toBe(true);
  });

  it('a revert of an evidence commit gives warnings only', async () => {
    const repo = repoCopy();
    await renameFirst(repo);
    const evidence = commitAll(repo, 'rename pair first');
    git(repo, 'checkout', '-q', '-b', 'revert');
    git(repo, 'revert', '--no-edit', evidence);
    const v = await verify(repo, 'main');
    expect(v.errors).toEqual([]);
    expect(v.status).toBe(0);
    expect(v.warnings).toContain('audit/unexplained-change');
    expect(v.warnings).toContain('audit/store-entry-removed');
    // a revert inside the same PR: warnings only, too
    git(repo, 'checkout', '-q', '-b', 'inside', 'main~1');
    await renameFirst(repo);
    const inside = commitAll(repo, 'rename pair first');
    git(repo, 'revert', '--no-edit', inside);
    const v2 = await verify(repo, 'main~1');
    expect(v2.errors).toEqual([]);
    expect(v2.status).toBe(0);
  });

  it('a hidden edit after a refactor, and a merge commit that slips an edit into a refactored module, fail; the Action agrees', async () => {
    const repo = await branchWithRenameFirst('hidden');
    await handEdit(repo, 'tidy', ['core/pair.gc', '(prim vec/get p 1)', '(prim vec/get p 0)']);
    const hidden = await verify(repo, 'main', 'HEAD', true);
    expectFail(hidden, 'audit/replay-module-mismatch');
    const f = hidden.report.findings.find((x) => x.code === 'audit/replay-module-mismatch')!;
    expect(f.file).toBe(`${PKG}/core/pair.gc`);
    const editedLine =
      readFileSync(join(repo, PKG, 'core/pair.gc'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('ledger/pair::second') && !l.includes(':exports')) + 1;
    expect(f.line).toBe(editedLine);
    const action = runAction(repo, { event: pullRequestEvent(git(repo, 'rev-parse', 'main'), git(repo, 'rev-parse', 'hidden')) });
    expect(action.status).toBe(1);
    expect(action.report!.ok).toBe(false);
    expect(action.annotations.some((a) => a.kind === 'error' && a.properties.file === `${PKG}/core/pair.gc` && a.properties.line === String(editedLine))).toBe(
      true,
    );

    git(repo, 'checkout', '-q', 'main');
    await renameEmoji(repo);
    commitAll(repo, 'rename emoji');
    git(repo, 'checkout', '-q', '-b', 'sneaky', 'hidden~1');
    git(repo, 'merge', '-q', '--no-commit', 'main');
    edit(repo, 'core/pair.gc', '(prim vec/get p 1)', '(prim vec/get p 0)');
    await pack(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '--no-edit');
    const sneaky = await verify(repo, 'main');
    expectFail(sneaky, 'audit/replay-module-mismatch');
    expect(routes(sneaky)).toEqual(['evidence', 'unexplained']);
  });

  it('obligations: a PR dropping a declared obligation by hand fails; audit fails when the last acceptance does not cover one', async () => {
    const repo = repoCopy();
    edit(repo, 'package.toml', 'obligations = []', 'obligations = ["ledger/tests::balanced"]');
    commitAll(repo, 'declare an obligation');
    git(repo, 'checkout', '-q', '-b', 'drop');
    edit(repo, 'package.toml', 'obligations = ["ledger/tests::balanced"]', 'obligations = []');
    commitAll(repo, 'drop the obligation');
    const dropped = await verify(repo, 'main');
    expectFail(dropped, 'audit/obligations-weakened');
    expect(dropped.report.findings.find((f) => f.code === 'audit/obligations-weakened')!.message).toContain('ledger/tests::balanced');
    edit(repo, 'package.toml', 'tests = [\n    "ledger/tests::amount-suite",\n', 'tests = [\n');
    commitAll(repo, 'drop a test suite');
    expect((await verify(repo, 'main')).report.findings.filter((f) => f.code === 'audit/obligations-weakened')).toHaveLength(2);

    // audit: the last acceptance (made with no obligations) does not cover one declared later
    git(repo, 'checkout', '-q', '-b', 'audit', 'main~1');
    await patchName(repo, 'ledger-pro');
    commitAll(repo, 'rename the product');
    expect((await runCli(['audit', '--pkg', PKG], { cwd: repo })).status).toBe(0);
    edit(repo, 'package.toml', 'obligations = []', 'obligations = ["ledger/tests::balanced"]');
    commitAll(repo, 'declare an obligation');
    expect((await runCli(['audit', '--pkg', PKG], { cwd: repo })).status).toBe(50);
  });
});
