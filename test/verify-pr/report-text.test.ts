// The verify-pr text report and messages: a finding's location is said once; a rolled-back apply's
// evidence explains nothing and warns about nothing; a conflicted refactor plan is not a commit's evidence.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageWithoutLocation, type AuditReport, type PackageAudit } from '../../src/verify-pr/report/findings.js';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { renderAuditText } from '../../src/cli/pr-verify.js';
import { applyPatch } from '../../src/patch/apply/apply.js';
import { readTerm } from '../../src/coreform/read.js';
import { planRefactor } from '../../src/refactor/plan.js';
import { loadRefactorRequest } from '../../src/refactor/request.js';
import { storeRefactorEvidence } from '../../src/refactor/evidence.js';
import { EvidenceStore } from '../../src/store/store.js';
import { addShopPackage, commitAll, git, honestRenamePr, initRepo } from '../action/helpers.js';
import { packOnDisk } from '../../src/patch/apply/host.js';
import { copyFixture, gcpatch } from '../helpers/cli.js';

describe('the text report', () => {
  it("names a finding's file and line once", () => {
    const f = {
      code: 'audit/unexplained-change' as const,
      severity: 'warning' as const,
      package: 'pkgs/shop',
      file: 'pkgs/shop/app/report.gc',
      line: 3,
      message: 'pkgs/shop/app/report.gc: commit abc changes it',
    };
    expect(messageWithoutLocation(f)).toBe('commit abc changes it');
    expect(messageWithoutLocation({ ...f, message: 'other text' })).toBe('other text');
    const report: AuditReport = {
      kind: 'gcpatch/pr-audit-v1',
      base: 'b'.repeat(40),
      baseRequested: 'b'.repeat(40),
      head: 'c'.repeat(40),
      failOn: 'error',
      replay: true,
      packages: [],
      paths: [],
      notSelected: [],
      findings: [f],
      verified: 0,
      failed: 0,
      ok: true,
    };
    const line = renderAuditText(report)
      .split('\n')
      .find((l) => l.includes('audit/unexplained-change'))!;
    expect(line).toBe('pkgs/shop/app/report.gc:3: warning: audit/unexplained-change: commit abc changes it');
  });

  it('counts one finding in the singular', () => {
    const f = { code: 'audit/unexplained-change' as const, severity: 'warning' as const, package: 'p', file: 'p/a.gc', message: 'changed' };
    const report: AuditReport = {
      kind: 'gcpatch/pr-audit-v1',
      base: 'b'.repeat(40),
      baseRequested: 'b'.repeat(40),
      head: 'c'.repeat(40),
      failOn: 'error',
      replay: true,
      packages: [],
      paths: [],
      notSelected: [],
      findings: [f],
      verified: 2,
      failed: 0,
      ok: true,
    };
    expect(renderAuditText(report).trimEnd().split('\n').at(-1)).toBe('verified: 2 checks passed, 0 failed; 0 errors, 1 warning (fail-on error)');
    const two = { ...report, findings: [f, { ...f, severity: 'error' as const }, { ...f, severity: 'error' as const }], ok: false };
    expect(renderAuditText(two).trimEnd().split('\n').at(-1)).toBe('FAILED: 2 checks passed, 0 failed; 2 errors, 1 warning (fail-on error)');
    expect(
      renderAuditText({ ...report, verified: 1 })
        .trimEnd()
        .split('\n')
        .at(-1),
    ).toBe('verified: 1 check passed, 0 failed; 0 errors, 1 warning (fail-on error)');
    const pkg: PackageAudit = {
      dir: 'p',
      manifestPath: 'p/package.toml',
      name: 'p',
      evidence: {},
      rows: [{ evidence: 'a.gc', kind: 'module', check: 'replay', result: 'pass', detail: '' }],
      replay: { status: 'reproduced', applied: [], modulesChanged: 1, mismatches: [], millis: 1 },
      changedModules: [],
      unexplainedModules: [],
      commits: [],
      state: 'present',
    };
    expect(renderAuditText({ ...report, packages: [pkg] })).toContain('package p (p): evidence none; replay reproduced (1 module); 1 check passed\n');
  });
});

describe('evidence that explains nothing', () => {
  it('a rolled-back apply (obligations, no runner) leaves evidence that raises no warning', async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const manifest = join(pkg, 'package.toml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('obligations = []', 'obligations = ["core/obligation::unit-tests"]'));
    const base = commitAll(repo, 'shop with an obligation');
    const patch = readTerm(
      '{:version 1 :intent "daily" :provenance {} :ops [{:op :replace-node :module-path "app/report.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new "nightly report"}]}',
    );
    expect(() => applyPatch({ pkg, patch })).toThrow(/obligation/);
    const head = commitAll(repo, "the failed attempt's evidence");
    const report = await auditPullRequest({ dir: repo, base, head, failOn: 'warning' });
    expect(report.findings.map((f) => f.code)).toEqual([]);
    expect(report.ok).toBe(true);
    const rows = report.packages[0]!.rows.filter((r) => r.check === 'accepted');
    expect(rows.map((r) => [r.result, r.detail])).toEqual([['skip', 'records a failed apply (acceptance :ok false, rolled back): it explains no change']]);
  });

  it("a conflicted refactor plan is checked but not listed as the commit's evidence", async () => {
    const repo = initRepo();
    const pkg = addShopPackage(repo);
    const base = commitAll(repo, 'shop');
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'shop/price::total', toSymbol: 'shop/price::tax-rate' });
    const plan = planRefactor(request);
    expect(plan.safe).toBe(false);
    storeRefactorEvidence(EvidenceStore.forPackage(pkg), request, plan.report);
    const head = commitAll(repo, 'a conflicted plan');
    const report = await auditPullRequest({ dir: repo, base, head });
    expect(report.packages[0]!.commits.flatMap((c) => c.evidence)).toEqual([]);
    expect(report.packages[0]!.rows.some((r) => r.kind === 'refactor-plan')).toBe(true);
  });
});

describe('advice that works', () => {
  it('a stale reference after a rename names the :rename-symbol patch on the module with the new use', async () => {
    const { repo, pkg } = honestRenamePr();
    git(repo, 'checkout', '-q', 'main');
    const text = join(pkg, 'util/text.gc');
    writeFileSync(text, readFileSync(text, 'utf8') + '\n(def shop/text::price-line (fn (c) shop/price::total))\n');
    packOnDisk(pkg);
    const main = commitAll(repo, 'a new use of shop/price::total');
    git(repo, 'checkout', '-q', 'rename-total');
    git(repo, 'merge', '-q', '--no-edit', 'main');
    const report = await auditPullRequest({ dir: repo, base: main, head: 'HEAD' });
    expect(report.ok).toBe(false);
    const stale = report.findings.find((f) => f.code === 'audit/refactor-stale-reference')!;
    expect(stale.file).toBe('pkgs/shop/util/text.gc');
    expect(stale.message).toContain('{:op :rename-symbol :module-path "util/text.gc" :from "shop/price::total" :to "shop/price::gross"}');
    expect(stale.message).not.toContain('Re-run');
  });
});

describe('gcpatch audit and empty pins', () => {
  it('says "a merge leaves hash = """ only for empty pins, not for a pin that is missing', () => {
    const dir = copyFixture('refactor/ledger');
    const manifest = join(dir, 'package.toml');
    const original = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, original.replace(/^hash = ".*"$/m, 'hash = ""'));
    const empty = gcpatch(['audit', '--pkg', dir]);
    expect(empty.stderr).toContain('1 module without a pin (a merge leaves hash = ""): run');
    writeFileSync(manifest, original.replace(/^hash = ".*"\n/m, ''));
    const missing = gcpatch(['audit', '--pkg', dir]);
    expect(missing.stderr).toContain('1 module without a pin: run');
    expect(missing.stderr).not.toContain('a merge leaves');
  });
});
