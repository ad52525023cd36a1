// auditPullRequest in-process on real temporary git repositories: the checks behind the Action.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditPullRequest, type AuditOptions } from '../../src/verify-pr/verify-pr.js';
import type { AuditReport } from '../../src/verify-pr/report/findings.js';
import { planRefactor } from '../../src/refactor/plan.js';
import { loadRefactorRequest } from '../../src/refactor/request.js';
import { storeRefactorEvidence } from '../../src/refactor/evidence.js';
import { EvidenceStore } from '../../src/store/store.js';
import { applyRefactorPlan } from '../../src/refactor/apply-plan.js';
import { addShopPackage, commitAll, git, honestRenamePr, initRepo, renameInPackage } from '../action/helpers.js';
import { renderAuditText } from '../../src/cli/pr-verify.js';

function audit(repo: string, base: string, head: string, options: Partial<AuditOptions> = {}): Promise<AuditReport> {
  return auditPullRequest({ dir: repo, base, head, ...options });
}

/** Swaps the `i`th and `j`th `[[modules]]` blocks of a manifest file (1-based; 0 is what precedes the first). */
function swapModuleBlocks(manifest: string, i: number, j: number): void {
  const blocks = readFileSync(manifest, 'utf8').split('\n\n[[modules]]\n');
  [blocks[i], blocks[j]] = [blocks[j]!, blocks[i]!];
  writeFileSync(manifest, blocks.join('\n\n[[modules]]\n'));
}

/** A repository whose base commit holds the shop package, with its welcome text then edited by hand (not committed). */
function shopWithHandEdit(): { repo: string; pkg: string; base: string } {
  const repo = initRepo();
  const pkg = addShopPackage(repo);
  const base = commitAll(repo, 'shop');
  const file = join(pkg, 'util/text.gc');
  writeFileSync(file, readFileSync(file, 'utf8').replace('Welcome to the shop', 'Hello'));
  return { repo, pkg, base };
}

/** Finding codes, without the acceptance notice every run without an obligation runner gives. */
function codes(report: AuditReport): string[] {
  return report.findings.filter((f) => f.code !== 'audit/acceptance-not-rerun').map((f) => f.code);
}

function rows(report: AuditReport, check: string): string[] {
  return report.packages.flatMap((p) => p.rows.filter((r) => r.check === check).map((r) => `${r.result}: ${r.detail}`));
}

describe('auditPullRequest', () => {
  it('replays a chain of two renames and re-plans the second from the state after the first', async () => {
    const { repo, pkg, base } = honestRenamePr();
    renameInPackage(pkg, 'shop/price::gross', 'shop/price::final');
    const head = commitAll(repo, 'rename again');
    const report = await audit(repo, base, head);
    expect(codes(report)).toEqual([]);
    expect(report.ok).toBe(true);
    const p = report.packages[0]!;
    expect(p.replay.status).toBe('reproduced');
    expect(p.replay.applied).toHaveLength(2);
    expect(p.evidence['apply-report']).toBe(2);
    expect(rows(report, 're-plan')).toEqual([
      expect.stringMatching(/^pass: re-planned from the parent of commit [0-9a-f]{12} \(rename shop\/price::total to shop\/price::gross\): identical report$/),
      expect.stringMatching(/^pass: re-planned from the parent of commit [0-9a-f]{12} \(rename again\): identical report$/),
    ]);
    expect(p.commits.map((c) => c.route)).toEqual(['evidence', 'evidence']);
  });

  it('compares against the merge base when the base branch moved on', async () => {
    const { repo, base, head } = honestRenamePr();
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'README.md'), '# shop, updated\n');
    const mainTip = commitAll(repo, 'docs on main');
    const report = await audit(repo, mainTip, head);
    expect(report.baseRequested).toBe(mainTip);
    expect(report.base).toBe(base);
    expect(report.ok).toBe(true);
  });

  it('replays a move refactor, manifest update included, and catches a hand reorder of the modules', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    const params = { refactorKind: 'move', fromSymbol: 'shop/price::tax-rate', toSymbol: 'shop/tax::rate', targetModulePath: 'lib/tax.gc' };
    const { request } = loadRefactorRequest(pkg, params);
    const plan = planRefactor(request);
    expect(plan.safe).toBe(true);
    applyRefactorPlan({ pkg, report: plan.report, request });
    const head = commitAll(repo, 'move the tax rate to its own module');
    const report = await audit(repo, base, head);
    expect(codes(report)).toEqual([]);
    expect(report.packages[0]!.changedModules).toEqual(['lib/price.gc', 'lib/tax.gc']);

    const manifest = join(pkg, 'package.toml');
    swapModuleBlocks(manifest, 1, 2);
    const reordered = commitAll(repo, 'reorder modules');
    const after = await audit(repo, base, reordered);
    expect(codes(after)).toEqual(['audit/replay-manifest-mismatch']);
    expect(after.findings[0]!.file).toBe('pkgs/shop/package.toml');
    expect(after.findings[0]!.message).toContain('modules differs from the manifest the evidence of this pull request produces');
  });

  it('ignores hand edits of manifest keys the evidence does not touch, but not of the module list', async () => {
    const { repo, pkg, base } = honestRenamePr();
    const manifest = join(pkg, 'package.toml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('version = "0.1.0"', 'version = "0.2.0"'));
    const bumped = commitAll(repo, 'bump the version');
    // a version bump by hand is named (a notice): it weakens nothing, so it fails no policy
    const bump = await audit(repo, base, bumped, { failOn: 'warning' });
    expect(bump.findings.map((f) => [f.severity, f.code])).toEqual([['notice', 'audit/manifest-key-changed']]);
    expect(bump.findings[0]!.message).toContain('version: "0.1.0" → "0.2.0"');
    expect(bump.ok).toBe(true);

    swapModuleBlocks(manifest, 3, 4);
    const reordered = commitAll(repo, 'reorder');
    const report = await audit(repo, base, reordered);
    expect(report.findings.map((f) => [f.severity, f.code, f.file]).filter((f) => f[0] !== 'notice')).toEqual([
      ['warning', 'audit/unexplained-change', 'pkgs/shop/package.toml'],
    ]);
    expect(report.findings.find((f) => f.severity === 'warning')!.message).toContain('changes the [[modules]] list (paths or order)');
    const noReplay = await audit(repo, base, reordered, { replay: false });
    expect(codes(noReplay)).toEqual(['audit/manifest-key-changed', 'audit/unexplained-change']);
  });

  it('with replay: false matches changed modules to the modules the patches name', async () => {
    const { repo, pkg, base } = honestRenamePr();
    const file = join(pkg, 'app/report.gc');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"daily report"', '"nightly report"'));
    const head = commitAll(repo, 'rename and a hidden edit');
    const without = await audit(repo, base, head, { replay: false });
    // Without replay the history walk still runs: an edit in a later commit of a module the patch named is a hidden edit.
    expect(codes(without)).toEqual(['audit/pin-mismatch', 'audit/replay-module-mismatch']);
    expect(without.packages[0]!.replay.status).toBe('disabled');
    const withReplay = await audit(repo, base, head);
    expect(codes(withReplay)).toEqual(['audit/pin-mismatch', 'audit/replay-module-mismatch']);
    // the greeting is the module's third top-level form: counted from 1, as an author counts
    for (const r of [without, withReplay])
      expect(r.findings.find((f) => f.code === 'audit/replay-module-mismatch')!.message).toContain('(top-level form 3 differs)');
  });

  it('does not say the replay reproduced the head when the net change holds a hand edit of a module the evidence changed', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    git(repo, 'checkout', '-q', '-b', 'pr');
    const file = join(pkg, 'lib/price.gc');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n(def extra 1)\n');
    commitAll(repo, 'hand edit');
    renameInPackage(pkg, 'shop/price::total', 'shop/price::gross');
    const head = commitAll(repo, 'rename');
    const report = await audit(repo, base, head);
    // each commit's evidence replays exactly, but the head holds the hand edit beside it (issue 39, finding 19)
    expect(report.findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.file])).toEqual([
      ['audit/replay-module-mismatch', 'pkgs/shop/lib/price.gc'],
    ]);
    expect(report.packages[0]!.replay).toMatchObject({ status: 'differs', mismatches: ['lib/price.gc'] });
    const text = renderAuditText(report);
    expect(text).not.toContain('replay reproduced');
    expect(text).toMatch(/^package shop \(pkgs\/shop\): evidence .*; replay differs \(lib\/price\.gc\); \d+ checks passed$/m);
  });

  it('notes a plan that was stored but not applied', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'shop/price::total', toSymbol: 'shop/price::gross' });
    storeRefactorEvidence(EvidenceStore.forPackage(pkg), request, planRefactor(request).report);
    const head = commitAll(repo, 'plan only');
    const report = await audit(repo, base, head);
    expect(report.ok).toBe(true);
    expect(report.findings.map((f) => [f.severity, f.code])).toEqual([['notice', 'audit/refactor-plan-not-applied']]);
    expect(rows(report, 're-plan')).toEqual([
      expect.stringMatching(/^pass: re-planned from the parent of commit [0-9a-f]{12} \(plan only\): identical report$/),
    ]);
  });

  it("checks a plan made on another state than the commit's parent by its operations (a squash of edit + rename)", async () => {
    const { repo, pkg, base } = shopWithHandEdit();
    renameInPackage(pkg, 'shop/price::total', 'shop/price::gross'); // planned after the hand edit
    const head = commitAll(repo, 'edit, then rename');
    const report = await audit(repo, base, head);
    expect(codes(report)).toEqual(['audit/unexplained-change']);
    expect(report.findings.find((x) => x.code === 'audit/unexplained-change')!.file).toBe('pkgs/shop/util/text.gc');
    expect(rows(report, 're-plan')).toEqual([
      expect.stringMatching(/^pass: made on another state; re-planned on the parent of commit .*: the same \d+ operations$/),
    ]);
    expect(report.packages[0]!.commits.map((c) => c.route)).toEqual(['unexplained']);
    expect(report.ok).toBe(true);
    expect((await audit(repo, base, head, { failOn: 'warning' })).ok).toBe(false);
  });

  it('says claimed, not re-run, for an acceptance it did not re-run (never a pass; no notice when no obligation is declared)', async () => {
    const { repo, base, head } = honestRenamePr();
    const report = await audit(repo, base, head);
    // the shop package declares obligations = []: there is nothing to re-run
    expect(report.findings.map((f) => [f.severity, f.code])).toEqual([]);
    expect(rows(report, 'accepted')).toEqual(['skip: acceptance :ok true claimed, not re-run here']);
    expect(report.packages[0]!.commits.map((c) => c.route)).toEqual(['evidence']);
  });

  it('enforces write-once on entries that existed at the base', async () => {
    const first = honestRenamePr();
    git(first.repo, 'checkout', '-q', 'main');
    git(first.repo, 'merge', '-q', '--ff-only', 'rename-total');
    const base = first.head;
    git(first.repo, 'checkout', '-q', '-b', 'cleanup');
    const store = join(first.pkg, '.genesis/store');
    const ev = first.evidence.evidence;
    writeFileSync(join(store, ev.acceptanceArtifact), readFileSync(join(store, ev.acceptanceArtifact), 'utf8').replace(':ok true', ':ok false'));
    rmSync(join(store, ev.request));
    const head = commitAll(first.repo, 'tamper with old evidence');
    const report = await audit(first.repo, base, head);
    expect(report.findings.map((f) => [f.severity, f.code, f.file])).toEqual(
      [
        ['error', 'audit/store-entry-modified', `pkgs/shop/.genesis/store/${ev.acceptanceArtifact}`],
        ['warning', 'audit/store-entry-removed', `pkgs/shop/.genesis/store/${ev.request}`],
      ].sort((a, b) => (a[2]! < b[2]! ? -1 : 1)),
    );
  });

  it('reports a missing refactor request and a missing patch', async () => {
    const { repo, pkg, base, evidence } = honestRenamePr();
    rmSync(join(pkg, '.genesis/store', evidence.evidence.request));
    rmSync(join(pkg, '.genesis/store', evidence.evidence.patch));
    const head = commitAll(repo, 'partial evidence');
    const report = await audit(repo, base, head);
    expect(codes(report).sort()).toEqual([
      'audit/apply-patch-missing',
      'audit/refactor-request-missing',
      'audit/unexplained-change',
      'audit/unexplained-change',
      'audit/unexplained-change',
    ]);
    expect(report.packages[0]!.unexplainedModules).toEqual(['app/cart.gc', 'app/report.gc', 'lib/price.gc']);
  });

  it('checks the head pins and points at the pin line', async () => {
    const { repo, pkg, base } = shopWithHandEdit();
    const head = commitAll(repo, 'edit without re-pinning');
    const report = await audit(repo, base, head);
    const pin = report.findings.find((f) => f.code === 'audit/pin-mismatch')!;
    expect(pin.file).toBe('pkgs/shop/package.toml');
    const manifest = readFileSync(join(pkg, 'package.toml'), 'utf8').split('\n');
    expect(manifest[pin.line! - 1]).toMatch(/^hash = "baa9b42f/);
    expect(manifest[pin.line!]).toBe('path = "util/text.gc"');
    expect(report.findings.find((f) => f.code === 'audit/unexplained-change')!.line).toBe(4);
  });

  it('reports an unreadable module at the head with its line', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    writeFileSync(join(pkg, 'util/text.gc'), '(def shop/text::banner\n  "unterminated)\n');
    const head = commitAll(repo, 'broken');
    const report = await audit(repo, base, head);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ code: 'audit/package-unreadable', file: 'pkgs/shop/util/text.gc', severity: 'error' });
    expect(report.findings[0]!.message).toContain('core/parse/');
  });

  it('selects packages with globs and flags a new package as unexplained', async () => {
    const repo = initRepo();
    writeFileSync(join(repo, 'README.md'), 'x\n');
    const base = commitAll(repo, 'empty');
    addShopPackage(repo, 'pkgs/shop');
    addShopPackage(repo, 'vendor/shop');
    const head = commitAll(repo, 'two packages');
    const all = await audit(repo, base, head);
    expect(all.packages.map((p) => p.dir)).toEqual(['pkgs/shop', 'vendor/shop']);
    expect(all.findings.map((f) => [f.severity, f.file])).toEqual([
      ['warning', 'pkgs/shop/package.toml'],
      ['warning', 'vendor/shop/package.toml'],
    ]);
    const some = await audit(repo, base, head, { packages: ['**/package.toml', '!vendor/**'] });
    expect(some.packages.map((p) => p.dir)).toEqual(['pkgs/shop']);
    expect(some.notSelected).toEqual(['vendor/shop/package.toml']);
    expect(some.findings.map((f) => [f.severity, f.code, f.file])).toContainEqual(['notice', 'audit/package-not-selected', 'vendor/shop/package.toml']);
    // the comma form of the Action input selects both; exclusions alone apply to the default
    const comma = await audit(repo, base, head, { packages: ['pkgs/shop/package.toml,vendor/shop/package.toml'] });
    expect(comma.packages.map((p) => p.dir)).toEqual(['pkgs/shop', 'vendor/shop']);
    const excluded = await audit(repo, base, head, { packages: ['!vendor/**'] });
    expect(excluded.packages.map((p) => p.dir)).toEqual(['pkgs/shop']);
    // a selection that selects none of the changed packages is an error that says so
    const none = await audit(repo, base, head, { packages: 'other/package.toml' });
    expect(none.packages).toEqual([]);
    expect(none.ok).toBe(false);
    expect(none.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['audit/selection-empty']);
    expect(none.findings.find((f) => f.code === 'audit/selection-empty')!.message).toContain('selects none of the 2 changed packages');
  });

  it('runs the obligation runner and requires an accepted acceptance term', async () => {
    const { repo, base, head } = honestRenamePr();
    const accepted = `printf '{:kind "genesis/acceptance-v0.2" :ok true :package {:name "shop" :version "0.1.0"} :obligations []}'`;
    const ok = await audit(repo, base, head, { obligationRunner: accepted });
    expect(ok.ok).toBe(true);
    expect(rows(ok, 'obligation runner')[0]).toMatch(/^pass: /);
    const failing = await audit(repo, base, head, { obligationRunner: 'echo boom >&2; exit 3' });
    expect(codes(failing)).toEqual(['audit/obligations-failed']);
    expect(failing.findings[0]!.message).toContain('patch/obligation-runner-failed');
    expect(failing.findings[0]!.message).toContain('stderr: boom');
    const rejected = await audit(repo, base, head, { obligationRunner: accepted.replace(':ok true', ':ok false') });
    expect(codes(rejected)).toEqual(['audit/obligations-failed']);
  });

  it('explains fetch-depth: 0 for a commit missing from a shallow clone', async () => {
    const { repo, base, head } = honestRenamePr();
    const clone = join(initRepo(), 'clone');
    git(repo, 'clone', '-q', '--depth', '1', '--branch', 'rename-total', `file://${repo}`, clone);
    await expect(audit(clone, base, head)).rejects.toMatchObject({ code: 'git/missing-commit', exitCode: 70 });
    await expect(audit(clone, base, head)).rejects.toThrow(/fetch-depth: 0/);
  });

  it('splits the changed packages over shards whose union is exactly the whole check', async () => {
    const repo = initRepo();
    const dirs = ['pkgs/a', 'pkgs/b', 'pkgs/c', 'pkgs/d', 'pkgs/e'];
    for (const d of dirs) addShopPackage(repo, d);
    writeFileSync(join(repo, 'README.md'), '# shops\n');
    const base = commitAll(repo, 'five shops');
    // a different problem in each package, and a .gc file outside every package
    const edit = (d: string, from: string, to: string, file = 'app/report.gc') => {
      const f = join(repo, d, file);
      writeFileSync(f, readFileSync(f, 'utf8').replace(from, to));
    };
    edit('pkgs/a', '"daily report"', '"nightly report"');
    edit('pkgs/b', 'version = "0.1.0"', 'version = "0.1.1"', 'package.toml');
    edit('pkgs/c', 'obligations = []', 'obligations = []\nflavour = "x"', 'package.toml');
    rmSync(join(repo, 'pkgs/d'), { recursive: true });
    edit('pkgs/e', '"daily report"', '"weekly report"');
    writeFileSync(join(repo, 'tool.gc'), '(def tool/x::y 1)\n');
    const head = commitAll(repo, 'five changes');
    const whole = await audit(repo, base, head);
    const key = (f: { code: string; file?: string; message: string }) => `${f.code} ${f.file ?? ''} ${f.message}`;
    for (const n of [1, 2, 3, 5, 7]) {
      const shards = await Promise.all(Array.from({ length: n }, (_, i) => audit(repo, base, head, { shard: `${i + 1}/${n}` })));
      // every changed package is verified by exactly one shard
      const verified = shards.flatMap((r) => r.packages.map((p) => p.dir));
      expect(verified.sort()).toEqual(whole.packages.map((p) => p.dir).sort());
      // the union of the findings is the whole check's, and so is the verdict
      expect(shards.flatMap((r) => r.findings.map(key)).sort()).toEqual(whole.findings.map(key).sort());
      expect(shards.every((r) => r.ok)).toBe(whole.ok);
      // each shard lists what it left out; every changed path is accounted for by some shard
      for (const r of shards) expect(r.notSelected.length).toBe(whole.packages.length - r.packages.length);
      expect(new Set(shards.flatMap((r) => r.paths.map((p) => p.path)))).toEqual(new Set(whole.paths.map((p) => p.path)));
    }
    expect(whole.ok).toBe(false);
    await expect(audit(repo, base, head, { shard: '3/2' })).rejects.toThrow(/shard must be i\/n/);
  });
});
