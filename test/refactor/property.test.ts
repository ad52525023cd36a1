// Property: for generated packages (comments, odd spacing, quotes, maps, strings spelling the
// symbol) a safe plan, applied with the patch engine, leaves no source-symbol term, exactly
// :replacement-count destination terms, modules that still read back; and the edit-plan route
// (apply the exported ranges to the original text, then canonicalize) gives the same modules.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { printModule } from '../../src/coreform/print.js';
import { termsEqual, type Term } from '../../src/coreform/term.js';
import { applyEdits } from '../../src/editplan/apply.js';
import { applyOpsInMemory } from '../../src/patch/ops/apply-ops.js';
import { packageStateFromSources } from '../../src/patch/protocol/state.js';
import { ConflictCode } from '../../src/refactor/codes.js';
import { refactorEditPlan } from '../../src/refactor/edit-plan-export.js';
import { planRefactor } from '../../src/refactor/plan.js';
import { verifyRefactorReport } from '../../src/refactor/verify.js';
import { utf8 } from '../../src/util/bytes.js';
import { requestOf } from './helpers.js';

const FROM = 'app/core::target';
const TO = 'app/renamed::target2';

function countSymbol(forms: readonly Term[], name: string): number {
  let n = 0;
  const stack: Term[] = [...forms];
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.kind === 'sym' && t.name === name) n++;
    else if (t.kind === 'pair') stack.push(t.car, t.cdr);
    else if (t.kind === 'vec') stack.push(...t.items);
    else if (t.kind === 'map') for (const [k, v] of t.entries) stack.push(k, v);
  }
  return n;
}

const ws = fc.constantFrom(' ', '  ', '\n', '\n  ', '\t', '\r\n', ` ; mentions ${FROM} in a comment\n`);
const atomSym = fc.constantFrom('foo', 'bar?', 'pkg/mod::x', ':kw', '-', 'a.b', 'm0::d0', 'm2::d0', FROM, FROM, FROM);
const atom = fc.oneof(atomSym, fc.integer({ min: -50, max: 50 }).map(String), fc.constantFrom(`"${FROM}"`, `b"${FROM}"`, '"é \\" x"', `"\\u0041${FROM}"`));

/** Source text of a code expression, with whitespace/comments between tokens. */
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    atom,
    tie('e').map((e) => `'${e}`),
    fc.tuple(tie('e'), ws, tie('e'), ws, tie('e')).map(([f, w1, a, w2, b]) => `(${f}${w1}${a}${w2}${b})`),
    tie('e').map((f) => `(${f})`),
    fc.tuple(tie('e'), ws, tie('e')).map(([a, w, b]) => `[${a}${w}${b}]`),
    fc
      .tuple(fc.constantFrom(':a', ':b', '1', FROM, `"${FROM}"`), ws, tie('e'), ws, fc.constantFrom(':a', ':c', FROM), ws, tie('e'))
      .map(([k1, w1, v1, w2, k2, w3, v2]) => `{${k1}${w1}${v1}${w2}${k2}${w3}${v2}}`),
    fc.tuple(ws, tie('e')).map(([w, body]) => `(fn${w}(p q)${w}${body})`),
    fc.tuple(tie('e'), ws, tie('e')).map(([v, w, body]) => `(let ((loc ${v}))${w}${body})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, t, e]) => `(if ${c} ${t} ${e})`),
  ),
})).e;

interface GeneratedPackage {
  modules: [string, string][];
  kind: 'rename' | 'move';
}

const pkg: fc.Arbitrary<GeneratedPackage> = fc
  .record({
    bodies: fc.array(fc.array(fc.tuple(expr, ws), { minLength: 0, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
    defining: fc.nat(),
    rhs: expr,
    kind: fc.constantFrom('rename' as const, 'move' as const),
  })
  .map(({ bodies, defining, rhs, kind }) => {
    const at = defining % bodies.length;
    const modules = bodies.map((forms, i): [string, string] => {
      const parts = forms.map(([e, w], j) => (j % 2 === 0 ? `(def m${i}::d${j} ${e})${w}` : `${e}${w}`));
      if (i === at) parts.splice(Math.min(1, parts.length), 0, `(def ${FROM}\n  ${rhs})\n`);
      return [`mod${i}.gc`, `; module ${i}\n${parts.join('\n')}`];
    });
    return { modules, kind };
  });

function manifestOf(modules: readonly [string, string][]): string {
  return `name = "gen"\nversion = "0.1.0"\nobligations = []\n${modules.map(([p]) => `\n[[modules]]\npath = "${p}"\n`).join('')}`;
}

describe('generated packages', () => {
  test('apply leaves no source term, :replacement-count destination terms, readable modules; edit plan agrees', () => {
    fc.assert(
      fc.property(pkg, ({ modules, kind }) => {
        const request = requestOf({ refactorKind: kind, fromSymbol: FROM, toSymbol: TO, targetModulePath: 'moved.gc' }, modules);
        const plan = planRefactor(request);
        // The only way these packages conflict: a move whose rhs references a later definition.
        expect(plan.conflicts.every((c) => c.code === ConflictCode.targetOrderDependency)).toBe(true);
        if (!plan.safe) return;
        const verified = verifyRefactorReport(plan.report, request);
        const before = packageStateFromSources(manifestOf(modules), Object.fromEntries(modules));
        const after = applyOpsInMemory(before, plan.patch!).state;
        let from = 0;
        let to = 0;
        for (const [path, forms] of after.modules) {
          from += countSymbol(forms, FROM);
          to += countSymbol(forms, TO);
          const reread = canonicalizeSource(printModule(forms));
          expect(reread.length, path).toBe(forms.length);
          reread.forEach((f, i) => expect(termsEqual(f, forms[i]!), `${path} form ${i}`).toBe(true));
        }
        expect(from).toBe(0);
        expect(to).toBe(plan.replacementCount);
        // A rename: per module, the renamed count equals the original count. A move: the modules and moved.gc.
        const renamed = kind === 'rename' ? modules : [];
        for (const [path] of renamed) {
          expect(countSymbol(after.modules.get(path)!, TO), path).toBe(countSymbol(before.modules.get(path)!, FROM));
        }
        const moved = kind === 'rename' ? [] : ['moved.gc'];
        expect([...after.modules.keys()].sort()).toEqual([...modules.map(([p]) => p), ...moved].sort());

        // The edit-plan route: edits applied to the original text, then canonicalized.
        const editPlan = refactorEditPlan(
          verified,
          modules.map(([modulePath, text]) => ({ modulePath, bytes: utf8(text) })),
        );
        const renamesOnly = applyOpsInMemory(before, { ops: plan.patch!.ops.slice(0, plan.affectedModules.length) }).state;
        const edited = new Map(modules);
        for (const file of editPlan.files) edited.set(file.path, applyEdits(edited.get(file.path)!, file.edits).text);
        for (const [path, text] of edited) {
          const forms = canonicalizeSource(text);
          const expected = renamesOnly.modules.get(path)!;
          expect(forms.length, path).toBe(expected.length);
          forms.forEach((f, i) => expect(termsEqual(f, expected[i]!), `${path} form ${i}`).toBe(true));
        }
        expect(editPlan.completeness).toBe(kind === 'rename' ? 'COMPLETE' : 'PARTIAL');
        expect(editPlan.files.reduce((n, f) => n + f.edits.filter((e) => e.provenance === 'RESOLVED').length, 0)).toBe(plan.replacementCount);
      }),
      { numRuns: 150 },
    );
  });
});
