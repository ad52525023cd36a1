// Stores written by gcpatch before plans matched the reference (docs/refactor.md
// "Independent verification", `refactor/report-outdated`): the safe patch header
// was `:intent "refactor <kind> <from> -> <to>[ into <target>]"` and `:provenance
// {:refactor-plan-request <request address> :refactor-plan-request-h <request-h>}`, conflicts had
// interpolated messages and form locations. Decision: such evidence is still *found* (linkage uses
// only :request-h and :patch-h, which did not change meaning) but does not verify: it fails with
// `refactor/report-outdated` (exit 50), whose message says to re-plan — in the library, the CLI
// and the PR audit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { auditPullRequest } from '../../src/verify-pr/verify-pr.js';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { int, kw, kwMap, mapGetKw, mapSet, str, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { findRefactorEvidence, findRefactorRequest, storeRefactorEvidence } from '../../src/refactor/evidence.js';
import { planRefactor, type RefactorPlan } from '../../src/refactor/plan.js';
import { loadRefactorRequest, type RefactorRequest } from '../../src/refactor/request.js';
import { verifyRefactorReport } from '../../src/refactor/verify.js';
import { EvidenceStore } from '../../src/store/store.js';
import { GcError } from '../../src/util/errors.js';
import { addShopPackage, commitAll, initRepo } from '../action/helpers.js';
import { gcpatch } from '../helpers/cli.js';

function set(m: Term, name: string, value: Term): MapTerm {
  return mapSet(m as MapTerm, kw(name), value);
}

/** The report older gcpatch wrote for the same request: the old header, resealed. */
function oldSafeReport(plan: RefactorPlan, request: RefactorRequest): MapTerm {
  const target = request.refactorKind === 'rename' ? '' : ` into ${request.targetModulePath}`;
  let patch = set(mapGetKw(plan.report, 'patch')!, 'intent', str(`refactor ${request.refactorKind} ${request.fromSymbol} -> ${request.toSymbol}${target}`));
  patch = set(patch, 'provenance', kwMap({ 'refactor-plan-request': str(request.address), 'refactor-plan-request-h': str(request.requestH) }));
  return set(set(plan.report, 'patch', patch), 'patch-h', str(hashTerm(patch)));
}

/** An older gcpatch's conflicted report: interpolated message and a form location. */
function oldConflictedReport(plan: RefactorPlan): MapTerm {
  const located = kwMap({
    code: str('refactor/destination-symbol-exists'),
    message: str('destination symbol shop/price::tax-rate is already defined'),
    'module-path': str('lib/price.gc'),
    'path-repr': str('[\n  [:form 1]]'),
  });
  return set(plan.report, 'conflicts', vec([located]));
}

function outdatedError(fn: () => unknown): GcError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GcError);
    return error as GcError;
  }
  throw new Error('expected refactor/report-outdated');
}

function shop(): { repo: string; pkg: string } {
  const repo = initRepo();
  return { repo, pkg: addShopPackage(repo) };
}

describe('an old store', () => {
  test('is linked by identities, and its reports fail with refactor/report-outdated saying how to re-plan', () => {
    const { pkg } = shop();
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'shop/price::total', toSymbol: 'shop/price::gross' });
    const plan = planRefactor(request);
    expect(plan.safe).toBe(true);
    const old = oldSafeReport(plan, request);
    const store = EvidenceStore.forPackage(pkg);
    const stored = storeRefactorEvidence(store, request, old);
    // An apply report of the old patch: same :patch-h linkage, old :provenance.
    const oldPatch = mapGetKw(old, 'patch') as MapTerm;
    const apply = store.putTerm(
      kwMap({
        kind: str('genesis/patch-apply-v0.3'),
        'patch-h': str(hashTerm(oldPatch)),
        provenance: mapGetKw(oldPatch, 'provenance')!,
        'ops-count': int(2),
      }),
    );

    expect(findRefactorRequest(old, store).requestH).toBe(request.requestH);
    for (const address of [stored.request, stored.report, apply]) {
      expect(findRefactorEvidence(store, address)).toEqual({ request: stored.request, report: stored.report, applyReports: [apply] });
    }

    const e = outdatedError(() => verifyRefactorReport(old, request));
    expect(e.code).toBe('refactor/report-outdated');
    expect(e.exitCode).toBe(50);
    expect(e.message).toContain('Re-plan it with `gcpatch refactor plan`');

    // The CLI: verify by store address, the request found by :request-h.
    const cli = gcpatch(['refactor', 'verify', stored.report, '--pkg', pkg, '--json']);
    expect(cli.status).toBe(50);
    expect(JSON.parse(cli.stdout).error.code).toBe('refactor/report-outdated');
    const text = gcpatch(['refactor', 'verify', stored.report, '--pkg', pkg]);
    expect(text.status).toBe(50);
    expect(text.stderr).toContain('refactor/report-outdated');
    expect(text.stderr).toContain('gcpatch refactor plan');
    expect(text.stderr).not.toMatch(/\n\s+at /);
    // Re-planning gives a report that verifies, next to the old one.
    const fresh = gcpatch(['refactor', 'plan', '--kind', 'rename', '--from', 'shop/price::total', '--to', 'shop/price::gross', '--pkg', pkg, '--json']);
    expect(fresh.status, fresh.stderr).toBe(0);
    const freshReport = JSON.parse(fresh.stdout).reportAddress as string;
    expect(gcpatch(['refactor', 'verify', freshReport, '--pkg', pkg]).status).toBe(0);
    // With both stored, the request leads to the report the current planner gives.
    expect(findRefactorEvidence(store, stored.request).report).toBe(freshReport);
  });

  test('an old conflicted report fails the same way', () => {
    const { pkg } = shop();
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'shop/price::total', toSymbol: 'shop/price::tax-rate' });
    const plan = planRefactor(request);
    expect(plan.safe).toBe(false);
    expect(outdatedError(() => verifyRefactorReport(oldConflictedReport(plan), request)).code).toBe('refactor/report-outdated');
  });

  test('verify-pr (the Action) reports the old report as invalid with the re-plan hint', { timeout: 120_000 }, async () => {
    const { repo, pkg } = shop();
    const base = commitAll(repo, 'shop');
    const { request } = loadRefactorRequest(pkg, { refactorKind: 'rename', fromSymbol: 'shop/price::total', toSymbol: 'shop/price::gross' });
    const old = oldSafeReport(planRefactor(request), request);
    storeRefactorEvidence(EvidenceStore.forPackage(pkg), request, old);
    writeFileSync(join(repo, 'NOTE.md'), 'plan stored by an old gcpatch\n');
    const head = commitAll(repo, 'old plan evidence');
    const report = await auditPullRequest({ dir: repo, base, head });
    const invalid = report.findings.filter((f) => f.code === 'audit/refactor-report-invalid');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.message).toContain('check outdated');
    expect(invalid[0]!.message).toContain('gcpatch refactor plan');
    expect(report.ok).toBe(false);
    expect(printTerm(old)).toContain(':refactor-plan-request ');
  });
});
