import { describe, expect, it } from 'vitest';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { kwMap, mapGetKw, str, type MapTerm, type Term } from '../../src/coreform/term.js';
import { diffReport, diffWorkspaces } from '../../src/diff/diff.js';
import { decodeDiffReport, diffRequestTerm } from '../../src/diff/protocol.js';
import { verifyDiffReport } from '../../src/diff/verify.js';
import { workspaceHash } from '../../src/workspace/workspace.js';
import { items, ws } from './helpers.js';

const field = (t: Term, name: string): Term => mapGetKw(t as MapTerm, name)!;

// docs/reference/patch-protocols.md §3.4 worked example (inputs from patch_semantic_diff_tests.rs).
const base = ws({
  'a.gc': '(def pkg::a 1)(def pkg::stable 2)',
  'old.gc': '(def pkg::old 1)',
  'resize.gc': '(def pkg::one 1)',
});
const target = ws({
  'resize.gc': '(def pkg::one 1)(def pkg::two 2)',
  'new.gc': '(def pkg::new 1)',
  'a.gc': '(def pkg::a 3)(def pkg::stable 2)',
});

describe('diff: worked example of docs/reference/patch-protocols.md §3.4', () => {
  const { request, report } = diffWorkspaces(base, target, { intent: 'synchronize modules', provenance: kwMap({}) });
  const decoded = decodeDiffReport(report);

  it('reproduces base-h, target-h and patch-h', () => {
    expect(decoded.baseH).toBe('452e1596aff9eddb944ae5067d7f868410535f2eb65afebe22ea9cbaf995da30');
    expect(decoded.targetH).toBe('c9473734579327b68e5dbb3893adc2fbed2487c76e3bde1cde8f71db4fc8d14a');
    expect(decoded.patchH).toBe('c9f73c80ff338e5ded01f00ac2d396a0a52f3ac61e954f5d0390a6ea115fc3dd');
  });

  it('reproduces all five op identities', () => {
    expect(decoded.opIdentities).toEqual([
      { ordinal: 0, opH: '1b97e035bf9b3f9ded35fee831b06ce1d8e4f31ecaebcad09d3bf03dbe6dd9e2' },
      { ordinal: 1, opH: 'fa9c45e9bedf9dd1e0522d9e74e10a7b99adb1d366fab1d717ef062111777efe' },
      { ordinal: 2, opH: 'cbe12e2867dd40aa09ac6f8a166fb08d7e8a23fd3c5a5d97952bab7f1ee37239' },
      { ordinal: 3, opH: '68461402177867ce5fd77a25bf0438e898e23e97af1e65a83337a1f7ea7e0a3a' },
      { ordinal: 4, opH: 'e559df8b1873aa7d3ef8b969583bfaab549d6adcef4e44079852444aff372b99' },
    ]);
  });

  it('emits replace a.gc, add new.gc, remove old.gc, remove+add resize.gc with the stats of the Rust test', () => {
    expect(decoded.opCount).toBe(5);
    expect(decoded.stats).toEqual({ additions: 2, removals: 2, replacements: 1 });
    const ops = items(field(decoded.patch, 'ops'));
    expect(ops.map((op) => `${printTerm(field(op, 'op'))} ${(field(op, 'module-path') as { value: string }).value}`)).toEqual([
      ':replace-node a.gc',
      ':add-module new.gc',
      ':remove-module old.gc',
      ':remove-module resize.gc',
      ':add-module resize.gc',
    ]);
    expect(printTerm(field(ops[0]!, 'path'))).toBe('[\n  [:form 0]]');
    expect(printTerm(field(ops[0]!, 'new'))).toBe('(def pkg::a 3)');
  });

  it('binds request-h to the canonical request and passes its verifier', () => {
    expect(decoded.requestH).toBe(hashTerm(request));
    expect(() => verifyDiffReport(request, report)).not.toThrow();
  });

  it('is the same report when the request lists modules in another order', () => {
    const reordered = kwMap({
      ...Object.fromEntries(request.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])),
      base: readTerm(
        `[{:module-path "resize.gc" :forms [(def pkg::one 1)]} {:module-path "old.gc" :forms [(def pkg::old 1)]} {:module-path "a.gc" :forms [(def pkg::a 1) (def pkg::stable 2)]}]`,
      ),
    });
    expect(printTerm(diffReport(reordered))).toBe(printTerm(report));
  });
});

describe('diff: the five rules', () => {
  const one = (b: Record<string, string>, t: Record<string, string>) => {
    const { request, report } = diffWorkspaces(ws(b), ws(t), { intent: 'x' });
    verifyDiffReport(request, report);
    const ops = items(field(field(report, 'patch'), 'ops'));
    return ops.map((op) =>
      printTerm(op)
        .replace(/\n\s*/g, ' ')
        .replace(/([[{(]) /g, '$1'),
    );
  };

  it('1: equal modules give no op', () => {
    expect(one({ 'a.gc': '(def x 1)' }, { 'a.gc': '(def x 1)' })).toEqual([]);
  });
  it('2: a target-only module is added with its forms', () => {
    expect(one({}, { 'a.gc': '(def x 1)' })).toEqual(['{:content [(def x 1)] :module-path "a.gc" :op :add-module}']);
  });
  it('3: a base-only module is removed', () => {
    expect(one({ 'a.gc': '(def x 1)' }, {})).toEqual(['{:module-path "a.gc" :op :remove-module}']);
  });
  it('4: same form count gives one replace-node per changed form, ascending', () => {
    const ops = one({ 'a.gc': '(def x 1)(def y 2)(def z 3)' }, { 'a.gc': '(def x 9)(def y 2)(def z 8)' });
    expect(ops).toHaveLength(2);
    expect(ops[0]).toContain('[:form 0]');
    expect(ops[1]).toContain('[:form 2]');
  });
  it('5: a changed form count gives remove-module then add-module', () => {
    expect(one({ 'a.gc': '(def x 1)' }, { 'a.gc': '(def x 1)(def y 2)' })).toEqual([
      '{:module-path "a.gc" :op :remove-module}',
      '{:content [(def x 1) (def y 2)] :module-path "a.gc" :op :add-module}',
    ]);
  });
  it('an empty diff has base-h = target-h and an empty normalized patch', () => {
    const w = ws({ 'a.gc': '(def x 1)' });
    const d = decodeDiffReport(diffWorkspaces(w, w).report);
    expect(d.baseH).toBe(d.targetH);
    expect(d.baseH).toBe(workspaceHash(w));
    expect(d.opCount).toBe(0);
  });
});

describe('diff: request admission', () => {
  const good = diffRequestTerm(base, target, 'i', kwMap({}));
  const withField = (name: string, value: Term): Term =>
    kwMap({ ...Object.fromEntries(good.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v])), [name]: value });

  it.each([
    ['duplicate paths', '[{:module-path "a.gc" :forms []} {:module-path "a.gc" :forms []}]', 'workspace/duplicate-path'],
    ['a non-portable path', '[{:module-path "../a.gc" :forms []}]', 'workspace/non-portable-path'],
    ['a drive prefix', '[{:module-path "C:/a.gc" :forms []}]', 'workspace/non-portable-path'],
    ['non-canonical forms', '[{:module-path "a.gc" :forms [(f a b)]}]', 'workspace/non-canonical-form'],
    ['non-vector forms', '[{:module-path "a.gc" :forms (def x 1)}]', 'core/closed/wrong-type'],
    ['an unknown record key', '[{:module-path "a.gc" :forms [] :x 1}]', 'core/closed/unknown-key'],
    ['a map instead of a vector', '{}', 'workspace/not-a-vector'],
  ])('rejects %s', (_name, src, code) => {
    expect(() => diffReport(withField('base', readTerm(src)))).toThrow(expect.objectContaining({ code, exitCode: 10 }));
  });

  it('rejects a wrong kind, profile, version, intent type or unknown key', () => {
    expect(() => diffReport(withField('kind', str('genesis/patch-merge-request-v0.1')))).toThrow(expect.objectContaining({ code: 'core/closed/wrong-value' }));
    expect(() => diffReport(withField('profile', str('x')))).toThrow(expect.objectContaining({ code: 'core/closed/wrong-value' }));
    expect(() => diffReport(withField('v', readTerm('2')))).toThrow(expect.objectContaining({ code: 'core/closed/wrong-value' }));
    expect(() => diffReport(withField('intent', readTerm(':x')))).toThrow(expect.objectContaining({ code: 'core/closed/wrong-type' }));
    expect(() => diffReport(withField('extra', readTerm('1')))).toThrow(expect.objectContaining({ code: 'core/closed/unknown-key' }));
  });
});
