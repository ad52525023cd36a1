// apply-plan and evidence linkage on a package in a temp directory (library level, no CLI).
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { mapGetKw, type MapTerm } from '../../src/coreform/term.js';
import { applyRefactorPlan } from '../../src/refactor/apply-plan.js';
import { findRefactorEvidence, findRefactorRequest, storeRefactorEvidence } from '../../src/refactor/evidence.js';
import { loadRefactorFromDisk } from '../../src/refactor/load.js';
import { planRefactor } from '../../src/refactor/plan.js';
import type { RefactorParams } from '../../src/refactor/request.js';
import { EvidenceStore } from '../../src/store/store.js';
import { GcError } from '../../src/util/errors.js';
import { loadPackage } from '../../src/workspace/package.js';
import { THREE_MODULES } from './helpers.js';

function writePackage(obligations: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'gcpatch-refactor-'));
  for (const [path, text] of THREE_MODULES) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const modules = THREE_MODULES.map(([p]) => `\n[[modules]]\npath = "${p}"\n`).join('');
  writeFileSync(join(dir, 'package.toml'), `name = "three"\nversion = "1.0.0"\nobligations = ${JSON.stringify(obligations)}\n${modules}`);
  return dir;
}

const RENAME: RefactorParams = { refactorKind: 'rename', fromSymbol: 'app/math::square', toSymbol: 'app/math::sq' };

function caught(fn: () => unknown): GcError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GcError) return error;
    throw error;
  }
  throw new Error('expected a GcError');
}

describe('applyRefactorPlan', () => {
  test('applies a verified plan; request, plan report and apply report find each other', () => {
    const dir = writePackage();
    const { request } = loadRefactorFromDisk(RENAME, dir);
    const plan = planRefactor(request);
    // No request given: apply-plan finds it in the store (stored by `refactor plan`).
    const store = EvidenceStore.forPackage(dir);
    storeRefactorEvidence(store, request, plan.report);
    const result = applyRefactorPlan({ pkg: dir, report: plan.report });
    expect(result.applied.changedPaths).toEqual(['app/main.gc', 'lib/math.gc']);
    expect(result.evidence.request).toBe(request.address);
    expect(readFileSync(join(dir, 'app/main.gc'), 'utf8')).toContain('app/math::sq');
    expect(readFileSync(join(dir, 'app/main.gc'), 'utf8')).not.toContain('app/math::square');
    const applyReport = store.getTerm(result.evidence.applyReport) as MapTerm;
    expect(printTerm(mapGetKw(applyReport, 'patch-h')!)).toBe(JSON.stringify(plan.patch!.patchH));
    expect(printTerm(mapGetKw(applyReport, 'provenance')!)).toBe(printTerm(mapGetKw(plan.patch!.normalized, 'provenance')!));
    for (const address of [result.evidence.request, result.evidence.report, result.evidence.applyReport]) {
      expect(findRefactorEvidence(store, address)).toEqual({
        request: result.evidence.request,
        report: result.evidence.report,
        applyReports: [result.evidence.applyReport],
      });
    }
    // Every module is re-pinned by the ordinary apply.
    expect(loadPackage(dir).modules.every((m) => m.pin === m.hash)).toBe(true);
  });

  test('a move plan creates the target before the source in the manifest', () => {
    const dir = writePackage();
    const { request } = loadRefactorFromDisk({ ...RENAME, refactorKind: 'move', targetModulePath: 'lib/sq.gc' }, dir);
    const result = applyRefactorPlan({ pkg: dir, report: planRefactor(request).report, request: request.term });
    expect(result.applied.changedPaths).toEqual(['app/main.gc', 'lib/math.gc', 'lib/sq.gc']);
    expect(loadPackage(dir).modules.map((m) => m.path)).toEqual(['lib/sq.gc', 'lib/math.gc', 'lib/text.gc', 'app/main.gc']);
  });

  test('failed obligations roll the package back (exit 30) and keep the evidence', () => {
    const dir = writePackage(['core/obligation::unit-tests']);
    const before = THREE_MODULES.map(([p]) => readFileSync(join(dir, p), 'utf8'));
    const manifestBefore = readFileSync(join(dir, 'package.toml'), 'utf8');
    const { request } = loadRefactorFromDisk(RENAME, dir);
    const plan = planRefactor(request);
    const e = caught(() => applyRefactorPlan({ pkg: dir, report: plan.report, request }));
    expect(e.code).toBe('patch/obligations-failed');
    expect(e.exitCode).toBe(30);
    expect(THREE_MODULES.map(([p]) => readFileSync(join(dir, p), 'utf8'))).toEqual(before);
    expect(readFileSync(join(dir, 'package.toml'), 'utf8')).toBe(manifestBefore);
    const store = EvidenceStore.forPackage(dir);
    expect(store.has(request.address)).toBe(true);
    expect(store.has(String(e.details?.reportArtifact))).toBe(true);
    expect(findRefactorEvidence(store, request.address).applyReports).toEqual([e.details?.reportArtifact]);
  });

  test('a conflicted plan is refused (exit 10) and a stale plan fails verification (exit 50)', () => {
    const dir = writePackage();
    const { request: bad } = loadRefactorFromDisk({ ...RENAME, toSymbol: 'app/math::cube' }, dir);
    const conflicted = caught(() => applyRefactorPlan({ pkg: dir, report: planRefactor(bad).report, request: bad }));
    expect([conflicted.code, conflicted.exitCode]).toEqual(['refactor/plan-conflicted', 10]);

    const { request } = loadRefactorFromDisk(RENAME, dir);
    const plan = planRefactor(request);
    writeFileSync(join(dir, 'lib/text.gc'), '(def app/text::greeting "hi")\n');
    const stale = caught(() => applyRefactorPlan({ pkg: dir, report: plan.report, request }));
    expect([stale.code, stale.exitCode]).toEqual(['refactor/stale-plan', 50]);
  });

  test('without a stored request, apply-plan says so', () => {
    const dir = writePackage();
    const { request } = loadRefactorFromDisk(RENAME, dir);
    const e = caught(() => applyRefactorPlan({ pkg: dir, report: planRefactor(request).report }));
    expect(e.code).toBe('refactor/request-not-found');
  });
});

describe('findRefactorRequest', () => {
  test('a conflicted report (no patch provenance) finds its request by hash-term', () => {
    const dir = writePackage();
    const { request } = loadRefactorFromDisk({ ...RENAME, refactorKind: 'inline' }, dir);
    const plan = planRefactor(request);
    expect(plan.safe).toBe(false);
    const store = EvidenceStore.forPackage(dir);
    store.putTerm(plan.report);
    expect(() => findRefactorRequest(plan.report, store)).toThrow(/not in/);
    storeRefactorEvidence(store, request, plan.report);
    expect(findRefactorRequest(plan.report, store).requestH).toBe(request.requestH);
  });

  test('an entry of another kind (e.g. an apply report or a patch) is named as such, not as a missing request', () => {
    const dir = writePackage();
    const store = EvidenceStore.forPackage(dir);
    const other = readTerm(new TextEncoder().encode('{:kind "genesis/patch-apply-v0.3" :patch-h "00"}'));
    const e = (() => {
      try {
        findRefactorRequest(other, store);
      } catch (error) {
        return error as GcError;
      }
      throw new Error('no error');
    })();
    expect(e.code).toBe('refactor/request-not-found');
    expect(e.message).toMatch(/this is a genesis\/patch-apply-v0\.3 entry, not a refactor plan report/);
  });
});
