// Planner tests: SEMANTIC_REFACTOR_PLAN_v0.1.md "Planning Semantics", "Rename", "Move and Extract",
// "Closed Report" — every conflict code, and the exact safe shapes of rename, move and extract.
import { describe, expect, test } from 'vitest';
import { hashTerm, termAddress } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { mapGetKw, type MapTerm, type Term } from '../../src/coreform/term.js';
import { ConflictCode, CONFLICT_CODES } from '../../src/refactor/codes.js';
import { formPathRepr, planRefactor, symbolProblem, type RefactorPlan } from '../../src/refactor/plan.js';
import { decodeRefactorRequest, refactorRequestTerm, type RefactorParams } from '../../src/refactor/request.js';
import { requestOf, THREE_MODULES } from './helpers.js';

const SQUARE = 'app/math::square';

function plan(params: Partial<RefactorParams>, modules = THREE_MODULES): RefactorPlan {
  return planRefactor(
    requestOf({ refactorKind: 'rename', fromSymbol: SQUARE, toSymbol: 'app/math::sq', ...params }, modules),
  );
}

function get(m: Term, name: string): Term {
  const v = mapGetKw(m as MapTerm, name);
  if (v === undefined) throw new Error(`missing :${name}`);
  return v;
}

function ops(p: RefactorPlan): MapTerm[] {
  return (get(get(p.report, 'patch'), 'ops') as unknown as { items: MapTerm[] }).items;
}

/** Asserts the conflicted report shape of "Closed Report" and returns the conflicts. */
function conflicted(p: RefactorPlan): { code: string; modulePath: string; pathRepr: string }[] {
  const r = p.report;
  expect(p.safe).toBe(false);
  expect(printTerm(get(r, 'ok'))).toBe('false');
  expect(printTerm(get(r, 'safe-to-apply'))).toBe('false');
  expect(get(r, 'patch').kind).toBe('nil');
  expect(printTerm(get(r, 'patch-h'))).toBe('""');
  expect(printTerm(get(r, 'op-identities'))).toBe('[]');
  expect(printTerm(get(r, 'op-count'))).toBe('0');
  expect(printTerm(get(r, 'replacement-count'))).toBe('0');
  expect(printTerm(get(r, 'module-count'))).toBe(String(p.request.modules.length));
  expect(printTerm(get(r, 'request-h'))).toBe(JSON.stringify(hashTerm(p.request.term)));
  const conflicts = (get(r, 'conflicts') as unknown as { items: MapTerm[] }).items;
  expect(conflicts.length).toBeGreaterThan(0);
  for (const c of conflicts) {
    expect(c.entries.map(([k]) => printTerm(k))).toEqual([':code', ':message', ':module-path', ':path-repr']);
    expect(CONFLICT_CODES).toContain((get(c, 'code') as { value: string }).value);
  }
  return p.conflicts.map(({ code, modulePath, pathRepr }) => ({ code, modulePath, pathRepr }));
}

describe('conflicts: one test per code', () => {
  test('refactor/kind-invalid', () => {
    expect(conflicted(plan({ refactorKind: 'inline' }))).toEqual([{ code: ConflictCode.kindInvalid, modulePath: '', pathRepr: '' }]);
  });

  test('refactor/source-symbol-invalid', () => {
    for (const bad of ['', 'a b', 'nil', 'true', '12x', '-3', 'fn', 'quote', 'x(y', 'x;y', "x'y", 'x"y']) {
      expect(conflicted(plan({ fromSymbol: bad }))).toEqual([{ code: ConflictCode.sourceSymbolInvalid, modulePath: '', pathRepr: '' }]);
    }
  });

  test('refactor/destination-symbol-invalid', () => {
    expect(conflicted(plan({ toSymbol: '[x]' }))).toEqual([{ code: ConflictCode.destinationSymbolInvalid, modulePath: '', pathRepr: '' }]);
  });

  test('refactor/no-op', () => {
    expect(conflicted(plan({ toSymbol: SQUARE }))).toEqual([{ code: ConflictCode.noOp, modulePath: '', pathRepr: '' }]);
  });

  test('refactor/source-symbol-missing (a string or keyword spelling is not a definition)', () => {
    expect(conflicted(plan({ fromSymbol: 'app/text::missing' }))).toEqual([
      { code: ConflictCode.sourceSymbolMissing, modulePath: '', pathRepr: '' },
    ]);
    // `(app/main::run 3)` uses app/main::run but a reference alone is not a definition.
    expect(conflicted(plan({ fromSymbol: 'int/mul' }))[0]!.code).toBe(ConflictCode.sourceSymbolMissing);
  });

  test('refactor/source-symbol-ambiguous: one conflict per definition after the first, located', () => {
    const modules = [...THREE_MODULES, ['extra.gc', `(def other 1)\n(def ${SQUARE} 2)\n`] as const];
    expect(conflicted(plan({}, modules))).toEqual([
      { code: ConflictCode.sourceSymbolAmbiguous, modulePath: 'extra.gc', pathRepr: '[\n  [:form 1]]' },
    ]);
  });

  test('refactor/destination-symbol-exists: located at every existing definition', () => {
    expect(conflicted(plan({ toSymbol: 'app/math::cube' }))).toEqual([
      { code: ConflictCode.destinationSymbolExists, modulePath: 'lib/math.gc', pathRepr: '[\n  [:form 2]]' },
    ]);
  });

  test('refactor/target-module-required', () => {
    for (const refactorKind of ['move', 'extract']) {
      expect(conflicted(plan({ refactorKind, targetModulePath: '' }))).toEqual([
        { code: ConflictCode.targetModuleRequired, modulePath: '', pathRepr: '' },
      ]);
    }
  });

  test('refactor/target-module-invalid', () => {
    for (const target of ['../x.gc', '/abs.gc', 'a//b.gc', 'C:/x.gc', 'a\\b.gc', './x.gc']) {
      expect(conflicted(plan({ refactorKind: 'move', targetModulePath: target }))).toEqual([
        { code: ConflictCode.targetModuleInvalid, modulePath: '', pathRepr: '' },
      ]);
    }
  });

  test('refactor/target-module-exists', () => {
    expect(conflicted(plan({ refactorKind: 'extract', targetModulePath: 'lib/text.gc' }))).toEqual([
      { code: ConflictCode.targetModuleExists, modulePath: 'lib/text.gc', pathRepr: '' },
    ]);
  });

  test('refactor/target-order-dependency: the moved rhs references a definition of the source module', () => {
    // cube's rhs references square, defined earlier in the same (source) module.
    expect(conflicted(plan({ refactorKind: 'move', fromSymbol: 'app/math::cube', toSymbol: 'app/m::cube', targetModulePath: 'lib/cube.gc' }))).toEqual([
      { code: ConflictCode.targetOrderDependency, modulePath: 'lib/math.gc', pathRepr: formPathRepr(1) },
    ]);
  });

  test('refactor/target-order-dependency: a later module, quoted data counts, self-reference does not', () => {
    const modules = [
      ['a.gc', '(def early 1)\n(def f (fn (n) (if n (f (prim int/sub n 1)) [early later \'later2])))\n'],
      ['b.gc', '(def later 2)\n(def later2 3)\n(def early 4)\n'],
    ] as const;
    expect(conflicted(plan({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'g', targetModulePath: 't.gc' }, modules))).toEqual([
      { code: ConflictCode.targetOrderDependency, modulePath: 'a.gc', pathRepr: formPathRepr(0) },
      { code: ConflictCode.targetOrderDependency, modulePath: 'b.gc', pathRepr: formPathRepr(0) },
      { code: ConflictCode.targetOrderDependency, modulePath: 'b.gc', pathRepr: formPathRepr(1) },
      { code: ConflictCode.targetOrderDependency, modulePath: 'b.gc', pathRepr: formPathRepr(2) },
    ]);
    // References to definitions of earlier modules only are fine; so is recursion.
    const ok = [
      ['a.gc', '(def early 1)\n'],
      ['b.gc', '(def f (fn (n) (if n (f n) early)))\n(def user (f 1))\n'],
    ] as const;
    expect(plan({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'g', targetModulePath: 't.gc' }, ok).safe).toBe(true);
  });

  test('all applicable conflicts are reported, in the documented order', () => {
    const p = plan({ refactorKind: 'move', fromSymbol: 'app/math::cube', toSymbol: 'app/math::square', targetModulePath: 'lib/text.gc' });
    expect(conflicted(p).map((c) => c.code)).toEqual([
      ConflictCode.destinationSymbolExists,
      ConflictCode.targetModuleExists,
      ConflictCode.targetOrderDependency,
    ]);
    const q = plan({ refactorKind: 'copy', fromSymbol: '', toSymbol: '1' });
    expect(conflicted(q).map((c) => c.code)).toEqual([
      ConflictCode.kindInvalid,
      ConflictCode.sourceSymbolInvalid,
      ConflictCode.destinationSymbolInvalid,
    ]);
  });
});

describe('safe plans', () => {
  test('rename: one :rename-symbol per manifest-ordered module holding the symbol, exact counts and hashes', () => {
    const p = plan({});
    expect(p.safe).toBe(true);
    expect(p.affectedModules).toEqual(['lib/math.gc', 'app/main.gc']);
    // lib/math.gc: ::meta export, the def name, cube's body; app/main.gc: run, table value, quoted datum.
    expect(p.replacementCount).toBe(6);
    const r = p.report;
    expect(r.entries.map(([k]) => printTerm(k))).toEqual([
      ':conflicts', ':kind', ':module-count', ':ok', ':op-count', ':op-identities', ':patch', ':patch-h',
      ':profile', ':replacement-count', ':request-h', ':safe-to-apply', ':v',
    ]);
    expect(printTerm(get(r, 'kind'))).toBe('"genesis/refactor-plan-v0.1"');
    expect(printTerm(get(r, 'profile'))).toBe('"genesis/patch-authority-v0.1"');
    expect(printTerm(get(r, 'v'))).toBe('1');
    expect(printTerm(get(r, 'ok'))).toBe('true');
    expect(printTerm(get(r, 'safe-to-apply'))).toBe('true');
    expect(printTerm(get(r, 'module-count'))).toBe('3');
    expect(printTerm(get(r, 'replacement-count'))).toBe('6');
    expect(printTerm(get(r, 'op-count'))).toBe('2');
    expect(printTerm(get(r, 'conflicts'))).toBe('[]');
    expect(ops(p).map((op) => printTerm(op))).toEqual([
      '{\n  :from "app/math::square"\n  :module-path "lib/math.gc"\n  :op :rename-symbol\n  :to "app/math::sq"}',
      '{\n  :from "app/math::square"\n  :module-path "app/main.gc"\n  :op :rename-symbol\n  :to "app/math::sq"}',
    ]);
    const patch = get(r, 'patch');
    expect(printTerm(get(r, 'patch-h'))).toBe(JSON.stringify(hashTerm(patch)));
    expect(printTerm(get(r, 'request-h'))).toBe(JSON.stringify(hashTerm(p.request.term)));
    expect(printTerm(get(r, 'op-identities'))).toBe(
      printTerm(readTerm(`[${ops(p).map((op, i) => `{:op-h "${hashTerm(op)}" :ordinal ${i}}`).join(' ')}]`)),
    );
    expect(printTerm(get(patch, 'intent'))).toBe('"refactor rename app/math::square -> app/math::sq"');
    expect(printTerm(get(patch, 'provenance'))).toBe(
      printTerm(readTerm(`{:refactor-plan-request "${termAddress(p.request.term)}" :refactor-plan-request-h "${hashTerm(p.request.term)}"}`)),
    );
    // Regression pins (canonical printer + BLAKE3 of this fixture).
    expect(p.request.requestH).toBe('c5db5255c83cd81ab5e2581458c1f1a99a95345b32307f26b559cfa42d683ed5');
    expect(p.patch!.patchH).toBe('3a92e16291499e0b721839eda10e988386e30461a9e30ea5204d13a93ccc6e01');
    expect(p.patch!.opIdentities.map((id) => id.opH)).toEqual([
      '7a0424370b1fe51586f26fcc52b54329bbf784ecb9bf4a1bc17af17b9a27cfea',
      '57cf715da93d2dc577a7b5ee08e6fca349604af7fb8b5ac53b1befaac1426b4c',
    ]);
  });

  test('rename: a target argument has no semantic effect', () => {
    const withTarget = plan({ targetModulePath: '../not-even-portable' });
    expect(withTarget.safe).toBe(true);
    expect(ops(withTarget).map((op) => printTerm(op))).toEqual(ops(plan({})).map((op) => printTerm(op)));
  });

  for (const refactorKind of ['move', 'extract'] as const) {
    test(`${refactorKind}: renames, then :split-module, then the final target-before-source :update-manifest`, () => {
      const p = plan({ refactorKind, targetModulePath: 'lib/sq.gc' });
      expect(p.safe).toBe(true);
      expect(p.replacementCount).toBe(6);
      expect(printTerm(get(p.report, 'op-count'))).toBe('4');
      const o = ops(p);
      expect(o.map((op) => printTerm(get(op, 'op')))).toEqual([':rename-symbol', ':rename-symbol', ':split-module', ':update-manifest']);
      expect(printTerm(o[2]!)).toBe(
        '{\n  :from-module-path "lib/math.gc"\n  :op :split-module\n  :symbols ["app/math::sq"]\n  :to-module-path "lib/sq.gc"}',
      );
      expect(printTerm(o[3]!)).toBe(
        printTerm(
          readTerm(`{:op :update-manifest :set {:modules [{"hash" "" "path" "lib/sq.gc"} {"hash" "" "path" "lib/math.gc"}
            {"hash" "" "path" "lib/text.gc"} {"hash" "" "path" "app/main.gc"}]}
            :obligations-add [] :obligations-remove [] :tests-add [] :tests-remove [] :caps-policy nil}`),
        ),
      );
      expect(printTerm(get(get(p.report, 'patch'), 'intent'))).toBe(`"refactor ${refactorKind} app/math::square -> app/math::sq into lib/sq.gc"`);
      expect(p.patch!.opIdentities.map((id) => id.opH)).toEqual(o.map((op) => hashTerm(op)));
      expect(p.patch!.patchH).toBe(hashTerm(get(p.report, 'patch')));
    });
  }

  test('move from a middle module inserts the target right before it, other order kept', () => {
    const modules = [
      ['a.gc', '(def a 1)\n'],
      ['b.gc', '(def helper (fn (x) (prim int/add x a)))\n(def b (helper 1))\n'],
      ['c.gc', '(def c (helper 2))\n'],
    ] as const;
    const p = plan({ refactorKind: 'move', fromSymbol: 'helper', toSymbol: 'util::helper', targetModulePath: 'util.gc' }, modules);
    expect(p.safe).toBe(true);
    expect(p.affectedModules).toEqual(['b.gc', 'c.gc']);
    expect(p.replacementCount).toBe(3);
    const set = get(ops(p)[3]!, 'set');
    expect(printTerm(get(set, 'modules')).replace(/\s+/g, ' ')).toBe(
      '[ {"hash" "" "path" "a.gc"} {"hash" "" "path" "util.gc"} {"hash" "" "path" "b.gc"} {"hash" "" "path" "c.gc"}]',
    );
  });

  test('source-symbol terms: strings are not counted, keywords are other names, map keys and quoted data are', () => {
    const modules = [['m.gc', `(def x {x "x" :x 'x})\n(def y [x (quote (x x))])\n"x"\n`]] as const;
    const p = plan({ fromSymbol: 'x', toSymbol: 'z' }, modules);
    expect(p.safe).toBe(true);
    expect(p.replacementCount).toBe(6);
  });

  test('the plan is a pure function of the request (term in, same report out)', () => {
    const a = plan({ refactorKind: 'move', targetModulePath: 'lib/sq.gc' });
    const again = planRefactor(decodeRefactorRequest(readTerm(printTerm(a.request.term))));
    expect(printTerm(again.report)).toBe(printTerm(a.report));
    const viaTerm = planRefactor(refactorRequestTerm(
      { refactorKind: 'move', fromSymbol: SQUARE, toSymbol: 'app/math::sq', targetModulePath: 'lib/sq.gc' },
      a.request.modules,
    ));
    expect(hashTerm(viaTerm.report)).toBe(hashTerm(a.report));
  });
});

describe('symbolProblem (the documented meaning of "malformed symbols")', () => {
  test.each([
    ['', 'is empty'],
    ['a b', 'whitespace'],
    ['a\tb', 'whitespace'],
    ['(a', 'delimiter'],
    ['a;b', 'delimiter'],
    ['nil', 'literal'],
    ['false', 'literal'],
    ['let', 'reserved'],
    ['unseal', 'reserved'],
    ['7up', 'integer'],
    ['-1x', 'integer'],
    ['\ud800x', 'surrogate'],
  ])('%j is malformed (%s)', (name, why) => {
    expect(symbolProblem(name)).toContain(why);
  });
  test.each(['x', '-', '-x', '+1', 'a.b', '::meta', ':kw', 'pkg/mod::name', 'café', '#x', 'nil?', 'b'])('%j is well-formed', (name) => {
    expect(symbolProblem(name)).toBeUndefined();
  });
});
