import { describe, expect, it } from 'vitest';
import { termAddress } from '../../../src/coreform/hash.js';
import { readTerm } from '../../../src/coreform/read.js';
import { bool, kw, kwMap, mapGet, NIL, str, vec, type MapTerm, type Term } from '../../../src/coreform/term.js';
import { applyReport, applyReportRequest } from '../../../src/patch/apply/apply-report.js';
import { verifyApplyReport } from '../../../src/patch/apply/apply-report-verify.js';
import { normalizePatch } from '../../../src/patch/protocol/normalize.js';
import { codeOf } from '../helpers.js';

const plan = normalizePatch(readTerm('{:version 1 :intent "i" :provenance {:p 1} :ops [{:op :rename-symbol :module-path "a.gc" :from x :to y}]}'));
const acceptance = (ok: boolean) =>
  kwMap({ kind: str('genesis/acceptance-v0.2'), ok: bool(ok), package: kwMap({ name: str('p'), version: str('1') }), obligations: vec([]) });
const edit = kwMap({ op: kw('rename-symbol'), 'module-path': str('a.gc') });
const request = (ok = true, extra: Partial<Record<string, Term>> = {}) => {
  const acc = acceptance(ok);
  const base = applyReportRequest({
    patch: plan.normalized,
    sourcePatchH: plan.sourcePatchH,
    packageArtifact: 'a'.repeat(64),
    acceptanceArtifact: termAddress(acc),
    acceptance: acc,
    semanticEdits: [edit],
  });
  return kwMap({ ...Object.fromEntries(base.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])), ...extra } as Record<string, Term>);
};

describe('apply report genesis/patch-apply-v0.3 (docs/reference/patch-protocols.md §3.8)', () => {
  it('has every field, copies :ok from the acceptance, and verifies', () => {
    for (const ok of [true, false]) {
      const req = request(ok);
      const report = applyReport(req);
      expect(report.entries.map(([k]) => (k as { name: string }).name)).toEqual([
        ':acceptance-artifact',
        ':intent',
        ':kind',
        ':ok',
        ':op-identities',
        ':ops-count',
        ':package-artifact',
        ':patch-h',
        ':profile',
        ':provenance',
        ':request-h',
        ':semantic-edits',
        ':source-patch-h',
        ':v',
      ]);
      expect(mapGet(report, kw('ok'))).toEqual(bool(ok));
      expect(verifyApplyReport(req, report)).toMatchObject({ ok, opsCount: 1, patchH: plan.patchH });
    }
  });
  it('rejects malformed requests', () => {
    expect(codeOf(() => applyReport(request(true, { 'package-artifact': str('xyz') })))).toBe('core/closed/wrong-type');
    expect(codeOf(() => applyReport(request(true, { 'acceptance-artifact': str('b'.repeat(64)) })))).toBe('patch/wrong-value');
    expect(codeOf(() => applyReport(request(true, { 'semantic-edits': vec([kwMap({ op: str('x') })]) })))).toBe('patch/wrong-type');
    expect(codeOf(() => applyReport(request(true, { patch: readTerm('{:version 1 :intent "i" :provenance {} :ops [{:op :update-manifest}]}') })))).toBe(
      'patch/wrong-value',
    );
  });
  it('the verifier rejects a report that disagrees with its request', () => {
    const req = request(true);
    const good = applyReport(req) as MapTerm;
    const tamper = (k: string, v: Term) =>
      kwMap({ ...Object.fromEntries(good.entries.map(([key, val]) => [(key as { name: string }).name.slice(1), val])), [k]: v });
    for (const [k, v] of [
      ['ok', bool(false)],
      ['ops-count', { kind: 'int', value: 2n } as Term],
      ['semantic-edits', vec([])],
      ['request-h', str('0'.repeat(64))],
      ['package-artifact', str('b'.repeat(64))],
      ['extra', NIL],
    ] as [string, Term][]) {
      expect(codeOf(() => verifyApplyReport(req, tamper(k, v)))).toBe('patch/report-mismatch');
    }
  });
});
