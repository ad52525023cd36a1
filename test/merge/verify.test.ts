import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { kw, kwMap, mapGetKw, mapSet, NIL, str, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { diffWorkspaces } from '../../src/diff/diff.js';
import { mergeWorkspaces } from '../../src/merge/rules.js';
import { verifyMergeReport } from '../../src/merge/verify.js';
import { workspaceHash, workspaceTerm } from '../../src/workspace/workspace.js';
import { mutateAt, tripleArb } from '../diff/arbitraries.js';
import { items, ws } from '../diff/helpers.js';

const set = (m: MapTerm, name: string, v: Term) => mapSet(m, kw(name), v);

describe('merge verifier', () => {
  const base = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 3)' });
  const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
  const right = ws({ 'a.gc': '(def a 1)(def b 20)', 'b.gc': '(def c 3)' });
  const conflicting = ws({ 'a.gc': '(def a 11)(def b 2)', 'b.gc': '(def c 3)' });

  it('accepts the producer’s reports', () => {
    const ok = mergeWorkspaces(base, left, right);
    expect(verifyMergeReport(ok.request, ok.report).ok).toBe(true);
    const bad = mergeWorkspaces(base, left, conflicting);
    expect(verifyMergeReport(bad.request, bad.report).conflictCount).toBe(1);
  });

  it('rejects a partial result on conflict', () => {
    const { request, report } = mergeWorkspaces(base, left, conflicting);
    const partial = set(set(report, 'merged', workspaceTerm(left)), 'merged-h', str(workspaceHash(left)));
    expect(() => verifyMergeReport(request, partial)).toThrow(/must be nil on conflict/);
  });

  it('rejects a success that hides a conflict', () => {
    const { request, report } = mergeWorkspaces(base, left, conflicting);
    const hidden = set(set(set(report, 'ok', { kind: 'bool', value: true }), 'conflicts', vec([])), 'conflict-count', { kind: 'int', value: 0n });
    expect(() => verifyMergeReport(request, hidden)).toThrow(/:ok/);
  });

  it('rejects a merged workspace that selects the wrong side, even with consistent hashes', () => {
    const { request, report } = mergeWorkspaces(base, left, right);
    const wrong = diffWorkspaces(base, left);
    const forged = set(set(set(report, 'merged', workspaceTerm(left)), 'merged-h', str(workspaceHash(left))), 'diff', wrong.report);
    expect(() => verifyMergeReport(request, forged)).toThrow(/:merged\[0\] form 1/);
  });

  it('rejects an embedded diff for another request', () => {
    const { request, report } = mergeWorkspaces(base, left, right, { intent: 'x' });
    const other = mergeWorkspaces(base, left, right, { intent: 'y' });
    const forged = set(report, 'diff', other.report.entries.find(([k]) => (k as { name: string }).name === ':diff')![1]);
    expect(() => verifyMergeReport(request, forged)).toThrow(expect.objectContaining({ code: 'diff/verify-failed', exitCode: 50 }));
  });

  it('rejects a conflict whose :conflict-h is not its identity', () => {
    const { request, report } = mergeWorkspaces(base, left, conflicting);
    const c = items(mapGetKw(report, 'conflicts'))[0] as MapTerm;
    const forged = set(report, 'conflicts', vec([set(c, 'conflict-h', str(hashTerm(NIL)))]));
    expect(() => verifyMergeReport(request, forged)).toThrow(/:conflict-h/);
  });

  it('a report with any single field mutated fails its verifier', () => {
    fc.assert(
      fc.property(tripleArb, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), ([b, l, r], choices) => {
        const { request, report } = mergeWorkspaces(b, l, r, { intent: 'm', provenance: kwMap({ by: str('t') }) });
        const mutated = mutateAt(report, choices);
        expect(printTerm(mutated)).not.toBe(printTerm(report));
        expect(() => verifyMergeReport(request, mutated)).toThrow(expect.objectContaining({ exitCode: 50 }));
      }),
      { numRuns: 500 },
    );
  });
});
