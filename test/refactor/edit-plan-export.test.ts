// Edit-plan export: exact UTF-16 ranges, sha256, provenance, completeness, and the fail-closed cases.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { termsEqual } from '../../src/coreform/term.js';
import { applyEdits } from '../../src/editplan/apply.js';
import { serializeEditPlan } from '../../src/editplan/serialize.js';
import { decodeEditPlan } from '../../src/editplan/decode.js';
import { validateEditPlan } from '../../src/editplan/validate.js';
import { refactorEditPlan, type EditPlanSource } from '../../src/refactor/edit-plan-export.js';
import { planRefactor } from '../../src/refactor/plan.js';
import type { RefactorParams } from '../../src/refactor/request.js';
import { verifyRefactorReport } from '../../src/refactor/verify.js';
import { GcError } from '../../src/util/errors.js';
import { utf8 } from '../../src/util/bytes.js';
import { requestOf } from './helpers.js';

function exportOf(params: RefactorParams, modules: [string, string][], sources?: EditPlanSource[]) {
  const request = requestOf(params, modules);
  const verified = verifyRefactorReport(planRefactor(request).report, request);
  return refactorEditPlan(verified, sources ?? modules.map(([modulePath, text]) => ({ modulePath, bytes: utf8(text) })));
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof GcError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('refactorEditPlan', () => {
  test('positions are 1-based lines and 0-based UTF-16 characters; CR stays on its line', () => {
    const text = '; 😀 comment\r\n(def 💶::a 1)\r\n(f "💶::a" 💶::a) ; 💶::a\n';
    const plan = exportOf({ refactorKind: 'rename', fromSymbol: '💶::a', toSymbol: 'euro::a' }, [['m.gc', text]]);
    expect(plan.schemaVersion).toBe('weavatrix.edit-plan.v1');
    expect(plan.operation).toBe('rename_symbol');
    expect(plan.completeness).toBe('COMPLETE');
    expect(plan.files).toHaveLength(1);
    const file = plan.files[0]!;
    expect(file.path).toBe('m.gc');
    expect(file.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(file.edits).toEqual([
      { startLine: 2, startChar: 5, endLine: 2, endChar: 10, before: '💶::a', after: 'euro::a', provenance: 'RESOLVED' },
      { startLine: 3, startChar: 11, endLine: 3, endChar: 16, before: '💶::a', after: 'euro::a', provenance: 'RESOLVED' },
    ]);
    const out = applyEdits(text, file.edits).text;
    expect(out).toBe('; 😀 comment\r\n(def euro::a 1)\r\n(f "💶::a" euro::a) ; 💶::a\n');
    // The plan survives serialize → decode → validate.
    validateEditPlan(decodeEditPlan(serializeEditPlan(plan)));
  });

  test('only affected modules appear, in manifest order, with an optional path prefix', () => {
    const modules: [string, string][] = [
      ['z.gc', '(def a 1)'],
      ['b.gc', '(def other 2)'],
      ['a.gc', '(f a)'],
    ];
    const request = requestOf({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b2' }, modules);
    const verified = verifyRefactorReport(planRefactor(request).report, request);
    const plan = refactorEditPlan(
      verified,
      modules.map(([modulePath, t]) => ({ modulePath, bytes: utf8(t) })),
      { pathPrefix: 'pkgs/x/' },
    );
    expect(plan.files.map((f) => f.path)).toEqual(['pkgs/x/z.gc', 'pkgs/x/a.gc']);
    const info = plan.extensions!.get('gcpatch') as Record<string, unknown>;
    expect(info).toMatchObject({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b2', requestH: request.requestH, replacementCount: 2 });
  });

  test('move/extract export the renames only, as PARTIAL', () => {
    const plan = exportOf({ refactorKind: 'extract', fromSymbol: 'a', toSymbol: 'b', targetModulePath: 't.gc' }, [['m.gc', '(def a 1)\n(f a)\n']]);
    expect(plan.operation).toBe('extract_symbol');
    expect(plan.completeness).toBe('PARTIAL');
    expect((plan.extensions!.get('gcpatch') as Record<string, unknown>).notCovered).toEqual(['split-module', 'update-manifest']);
  });

  test('an overwritten map entry is edited too (LEXICAL_EXACT) so that it stays overwritten', () => {
    const text = '(def k {k 1 k 2})\n';
    const plan = exportOf({ refactorKind: 'rename', fromSymbol: 'k', toSymbol: 'j' }, [['m.gc', text]]);
    expect(plan.files[0]!.edits.map((e) => e.provenance)).toEqual(['RESOLVED', 'LEXICAL_EXACT', 'RESOLVED']);
    const forms = canonicalizeSource(applyEdits(text, plan.files[0]!.edits).text);
    expect(termsEqual(forms[0]!, canonicalizeSource('(def j {j 2})')[0]!)).toBe(true);
  });

  test('fails closed: conflicted, stale source, and renames the source syntax cannot express', () => {
    const request = requestOf({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'a' }, [['m.gc', '(def a 1)']]);
    expect(code(() => refactorEditPlan(verifyRefactorReport(planRefactor(request).report, request), []))).toBe('refactor/plan-conflicted');
    expect(
      code(() =>
        exportOf({ refactorKind: 'rename', fromSymbol: 'a', toSymbol: 'b' }, [['m.gc', '(def a 1)']], [{ modulePath: 'm.gc', bytes: utf8('(def a 2)') }]),
      ),
    ).toBe('refactor/stale-plan');
    // Canonical forms curry (fn (x y) …) into nested one-parameter fns, where renaming y to x is
    // fine; the source text would read (fn (x x) …), a duplicate parameter.
    expect(code(() => exportOf({ refactorKind: 'rename', fromSymbol: 'y', toSymbol: 'x' }, [['m.gc', '(def y 1)\n(def f (fn (x y) y))\n']]))).toBe(
      'refactor/edit-plan-unmappable',
    );
  });
});
