// Planner tests: GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Planning Semantics", "Rename", "Move and Extract",
// "Closed Report" — every conflict code, and the exact safe shapes of rename, move and extract.
import { describe, expect, test } from 'vitest';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { mapGetKw, type MapTerm, type Term } from '../../src/coreform/term.js';
import { ConflictCode, CONFLICT_CODES } from '../../src/refactor/codes.js';
import { planRefactor, type RefactorPlan } from '../../src/refactor/plan.js';
import { decodeRefactorRequest, refactorRequestTerm, type RefactorParams } from '../../src/refactor/request.js';
import { requestOf, THREE_MODULES } from './helpers.js';

const SQUARE = 'app/math::square';

function plan(params: Partial<RefactorParams>, modules = THREE_MODULES): RefactorPlan {
  return planRefactor(requestOf({ refactorKind: 'rename', fromSymbol: SQUARE, toSymbol: 'app/math::sq', ...params }, modules));
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

describe('conflicted report shape ("Closed Report")', () => {
  // The exact conflict sets, messages and order are in reference-reports.test.ts.
  test.each([
    ['kind', { refactorKind: 'inline' }],
    ['missing source', { fromSymbol: 'app/text::missing' }],
    ['existing destination', { toSymbol: 'app/math::cube' }],
    ['existing target', { refactorKind: 'extract', targetModulePath: 'lib/text.gc' }],
    ['order dependency', { refactorKind: 'move', fromSymbol: 'app/math::cube', toSymbol: 'app/m::cube', targetModulePath: 'lib/cube.gc' }],
  ] as [string, Partial<RefactorParams>][])('%s: false statuses, nil patch, zero counts, closed records', (_name, p) => {
    const cs = conflicted(plan(p));
    expect(new Set(cs.map((c) => c.code)).size).toBe(cs.length);
    for (const c of cs) expect(c.pathRepr).toBe('');
  });

  test('a keyword or string spelling is not a definition; a reference alone is not either', () => {
    expect(conflicted(plan({ fromSymbol: ':app/math::square' }))[0]!.code).toBe(ConflictCode.sourceSymbolMissing);
    expect(conflicted(plan({ fromSymbol: 'int/mul' }))[0]!.code).toBe(ConflictCode.sourceSymbolMissing);
  });

  test('the order dependency counts quoted data and later modules, not earlier modules', () => {
    const modules = [
      ['a.gc', "(def early 1)\n(def f (fn (n) [early 'later]))\n"],
      ['b.gc', '(def later 2)\n'],
    ] as const;
    // `early` (a.gc, form 0) is the first offending definition: same module as f.
    expect(conflicted(plan({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'g', targetModulePath: 't.gc' }, modules))).toEqual([
      { code: ConflictCode.targetOrderDependency, modulePath: 'a.gc', pathRepr: '' },
    ]);
    const quotedLater = [
      ['a.gc', "(def f (fn (n) 'later))\n"],
      ['b.gc', '(def later 2)\n'],
    ] as const;
    expect(conflicted(plan({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'g', targetModulePath: 't.gc' }, quotedLater))).toEqual([
      { code: ConflictCode.targetOrderDependency, modulePath: 'b.gc', pathRepr: '' },
    ]);
    const ok = [
      ['a.gc', '(def early 1)\n'],
      ['b.gc', '(def f (fn (n) (if n early 0)))\n(def user (f 1))\n'],
    ] as const;
    expect(plan({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'g', targetModulePath: 't.gc' }, ok).safe).toBe(true);
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
      ':conflicts',
      ':kind',
      ':module-count',
      ':ok',
      ':op-count',
      ':op-identities',
      ':patch',
      ':patch-h',
      ':profile',
      ':replacement-count',
      ':request-h',
      ':safe-to-apply',
      ':v',
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
      printTerm(
        readTerm(
          `[${ops(p)
            .map((op, i) => `{:op-h "${hashTerm(op)}" :ordinal ${i}}`)
            .join(' ')}]`,
        ),
      ),
    );
    expect(printTerm(get(patch, 'intent'))).toBe('"semantic-refactor/rename"');
    expect(printTerm(get(patch, 'provenance'))).toBe(
      printTerm(readTerm('{:from "app/math::square" :kind :rename :to "app/math::sq" :tool "genesis semantic-edit refactor-plan"}')),
    );
    // Regression pins (canonical printer + BLAKE3 of this fixture; the ops do not depend on the header).
    expect(p.request.requestH).toBe('c5db5255c83cd81ab5e2581458c1f1a99a95345b32307f26b559cfa42d683ed5');
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
      expect(printTerm(o[2]!)).toBe('{\n  :from-module-path "lib/math.gc"\n  :op :split-module\n  :symbols ["app/math::sq"]\n  :to-module-path "lib/sq.gc"}');
      expect(printTerm(o[3]!)).toBe(
        printTerm(
          readTerm(`{:op :update-manifest :set {:modules [{"hash" "" "path" "lib/sq.gc"} {"hash" "" "path" "lib/math.gc"}
            {"hash" "" "path" "lib/text.gc"} {"hash" "" "path" "app/main.gc"}]}
            :obligations-add [] :obligations-remove [] :tests-add [] :tests-remove [] :caps-policy nil}`),
        ),
      );
      expect(printTerm(get(get(p.report, 'patch'), 'intent'))).toBe(`"semantic-refactor/${refactorKind}"`);
      expect(printTerm(get(get(get(p.report, 'patch'), 'provenance'), 'kind'))).toBe(`:${refactorKind}`);
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
    const viaTerm = planRefactor(
      refactorRequestTerm({ refactorKind: 'move', fromSymbol: SQUARE, toSymbol: 'app/math::sq', targetModulePath: 'lib/sq.gc' }, a.request.modules),
    );
    expect(hashTerm(viaTerm.report)).toBe(hashTerm(a.report));
  });
});
