import { describe, expect, it } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { kwMap, mapGetKw, NIL, str, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { decodeDiffReport } from '../../src/diff/protocol.js';
import { decodeMergeReport, mergeRequestTerm, type MergeReport } from '../../src/merge/report.js';
import { mergeReport, mergeWorkspaces } from '../../src/merge/rules.js';
import { verifyMergeReport } from '../../src/merge/verify.js';
import { workspaceHash, workspaceTerm, type Workspace } from '../../src/workspace/workspace.js';
import { ws } from '../diff/helpers.js';

function merge(base: Workspace, left: Workspace, right: Workspace): MergeReport & { term: MapTerm } {
  const { request, report } = mergeWorkspaces(base, left, right, { intent: 'merge', provenance: kwMap({ tool: str('test') }) });
  verifyMergeReport(request, report);
  return { ...decodeMergeReport(report), term: report };
}

const forms = (src: string) => vec(canonicalizeSource(src));
const mergedOf = (r: MergeReport) => printTerm(r.merged!);

const base = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 3)' });

describe('merge rules 1-3 (clean)', () => {
  it('rule 1: identical edits on both sides are taken once', () => {
    const edited = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const r = merge(base, edited, edited);
    expect(r.ok).toBe(true);
    expect(mergedOf(r)).toBe(printTerm(workspaceTerm(edited)));
  });

  it('rule 1: mutual deletion removes the module', () => {
    const without = ws({ 'a.gc': '(def a 1)(def b 2)' });
    const r = merge(base, without, without);
    expect(r.ok).toBe(true);
    expect(r.merged!.items).toHaveLength(1);
    expect(decodeDiffReport(r.diff!).stats).toEqual({ additions: 0, removals: 1, replacements: 0 });
  });

  it('rule 2 and 3: one-sided edits and independent module changes', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const right = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 30)', 'new.gc': '(def n 1)' });
    const r = merge(base, left, right);
    expect(r.ok).toBe(true);
    expect(mergedOf(r)).toBe(printTerm(workspaceTerm(ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 30)', 'new.gc': '(def n 1)' }))));
  });

  it('rule 1: both sides adding the same module identically is clean', () => {
    const both = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 3)', 'n.gc': '(def n 1)' });
    expect(merge(base, both, both).ok).toBe(true);
  });

  it('rule 6: disjoint form edits in one module merge form by form', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const right = ws({ 'a.gc': '(def a 1)(def b 20)', 'b.gc': '(def c 3)' });
    const r = merge(base, left, right);
    expect(r.ok).toBe(true);
    expect(printTerm(mapGetKw(r.merged!.items[0] as MapTerm, 'forms')!)).toBe(printTerm(forms('(def a 10)(def b 20)')));
    const diff = decodeDiffReport(r.diff!);
    expect(diff.stats).toEqual({ additions: 0, removals: 0, replacements: 2 });
    expect(diff.baseH).toBe(workspaceHash(base));
    expect(diff.targetH).toBe(r.mergedH);
  });

  it('the embedded diff carries the request intent and provenance', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const r = merge(base, left, base);
    const patch = decodeDiffReport(r.diff!).patch;
    expect(printTerm(mapGetKw(patch, 'intent')!)).toBe('"merge"');
    expect(printTerm(mapGetKw(patch, 'provenance')!)).toBe('{:tool "test"}');
  });
});

describe('merge conflicts (rules 4-7)', () => {
  it('rule 4: module/divergent-add with hash-term(nil) for the absent base', () => {
    const left = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 3)', 'n.gc': '(def n 1)' });
    const right = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 3)', 'n.gc': '(def n 2)' });
    const r = merge(base, left, right);
    expect(r.ok).toBe(false);
    expect(r.merged).toBeNull();
    expect(r.mergedH).toBeNull();
    expect(r.diff).toBeNull();
    expect(r.conflicts).toEqual([
      expect.objectContaining({
        code: 'module/divergent-add',
        explanation: 'both branches added the same module path differently',
        modulePath: 'n.gc',
        formIndex: null,
        baseH: hashTerm(NIL),
        leftH: hashTerm(forms('(def n 1)')),
        rightH: hashTerm(forms('(def n 2)')),
      }),
    ]);
    expect(hashTerm(NIL)).toBe('0a3f5165053e99a22a909b9e2f62ad06e428df2ba0d4a928622d5bc92bb5ca3f');
  });

  it.each(['left', 'right'] as const)('rule 5: module/delete-modify, deleted on the %s', (deletedOn) => {
    const deleted = ws({ 'a.gc': '(def a 1)(def b 2)' });
    const modified = ws({ 'a.gc': '(def a 1)(def b 2)', 'b.gc': '(def c 30)' });
    const [left, right] = deletedOn === 'left' ? [deleted, modified] : [modified, deleted];
    const sideH = (side: typeof deletedOn): string => hashTerm(side === deletedOn ? NIL : forms('(def c 30)'));
    expect(merge(base, left, right).conflicts).toEqual([
      expect.objectContaining({
        code: 'module/delete-modify',
        explanation: 'one branch deleted a module changed by the other branch',
        modulePath: 'b.gc',
        formIndex: null,
        baseH: hashTerm(forms('(def c 3)')),
        leftH: sideH('left'),
        rightH: sideH('right'),
      }),
    ]);
  });

  it('rule 6: form/divergent-edit at the exact form index, other forms still merged', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const right = ws({ 'a.gc': '(def a 11)(def b 2)', 'b.gc': '(def c 3)' });
    const r = merge(base, left, right);
    expect(r.conflicts).toEqual([
      expect.objectContaining({
        code: 'form/divergent-edit',
        explanation: 'both branches changed the same top-level form differently',
        modulePath: 'a.gc',
        formIndex: 0,
        baseH: hashTerm(canonicalizeSource('(def a 1)')[0]!),
        leftH: hashTerm(canonicalizeSource('(def a 10)')[0]!),
        rightH: hashTerm(canonicalizeSource('(def a 11)')[0]!),
      }),
    ]);
  });

  it('rule 7: module/structural-divergence when form counts differ and both changed', () => {
    const left = ws({ 'a.gc': '(def a 1)(def b 2)(def x 1)', 'b.gc': '(def c 3)' });
    const right = ws({ 'a.gc': '(def a 1)', 'b.gc': '(def c 3)' });
    const [c] = merge(base, left, right).conflicts;
    expect(c).toMatchObject({
      code: 'module/structural-divergence',
      explanation: 'both branches changed module structure incompatibly',
      modulePath: 'a.gc',
      formIndex: null,
      baseH: hashTerm(forms('(def a 1)(def b 2)')),
    });
  });

  it('conflict-h is hash-term of the record without :conflict-h', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const right = ws({ 'a.gc': '(def a 11)(def b 2)', 'b.gc': '(def c 3)' });
    const r = merge(base, left, right);
    const record = r.conflictTerms[0] as MapTerm;
    const without = kwMap(
      Object.fromEntries(
        record.entries.filter(([k]) => (k as { name: string }).name !== ':conflict-h').map(([k, v]) => [(k as { name: string }).name.slice(1), v]),
      ),
    );
    expect(r.conflicts[0]!.conflictH).toBe(hashTerm(without));
  });

  it('reports every conflict, ordered by module path then form index, and no partial result', () => {
    const b = ws({ 'z.gc': '(def a 1)(def b 2)(def c 3)', 'm.gc': '(def m 1)', 'a.gc': '(def q 1)' });
    const left = ws({ 'z.gc': '(def a 10)(def b 2)(def c 30)', 'm.gc': '(def m 2)', 'a.gc': '(def q 1)', 'n.gc': '1' });
    const right = ws({ 'z.gc': '(def a 11)(def b 2)(def c 31)', 'a.gc': '(def q 1)', 'n.gc': '2' });
    const r = merge(b, left, right);
    expect(r.ok).toBe(false);
    expect(r.conflictCount).toBe(4);
    expect(r.conflicts.map((c) => [c.modulePath, c.formIndex, c.code])).toEqual([
      ['m.gc', null, 'module/delete-modify'],
      ['n.gc', null, 'module/divergent-add'],
      ['z.gc', 0, 'form/divergent-edit'],
      ['z.gc', 2, 'form/divergent-edit'],
    ]);
    expect(mapGetKw(r.term, 'merged')).toEqual(NIL);
  });
});

describe('merge: request handling', () => {
  it('rejects a malformed request', () => {
    const req = mergeRequestTerm(base, base, base, 'i', kwMap({}));
    const bad = kwMap({
      ...Object.fromEntries(req.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])),
      left: readTerm('[{:module-path "/abs.gc" :forms []}]'),
    });
    expect(() => mergeReport(bad)).toThrow(expect.objectContaining({ code: 'workspace/non-portable-path', exitCode: 10 }));
    expect(() => mergeReport(readTerm('{:kind "genesis/patch-merge-request-v0.1"}'))).toThrow(expect.objectContaining({ code: 'core/closed/missing-key' }));
  });

  it('runs from a request term exactly as from workspaces', () => {
    const left = ws({ 'a.gc': '(def a 10)(def b 2)', 'b.gc': '(def c 3)' });
    const { request, report } = mergeWorkspaces(base, left, base, { intent: 'i' });
    expect(printTerm(mergeReport(request))).toBe(printTerm(report));
    expect(decodeMergeReport(report).requestH).toBe(hashTerm(request));
  });

  it('ignores nothing: provenance must be a map', () => {
    const req = mergeRequestTerm(base, base, base, 'i', kwMap({}));
    const bad = kwMap({ ...Object.fromEntries(req.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])), provenance: str('x') as Term });
    expect(() => mergeReport(bad)).toThrow(expect.objectContaining({ code: 'core/closed/wrong-type' }));
  });
});
