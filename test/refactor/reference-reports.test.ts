// Exact report bytes: the planner's reports are the reference producer's, byte for byte
// (docs/reference/patch-protocols.md §3.10: fixed messages, no locations but the order dependency's module, at most
// one conflict per code, the order dependency only when nothing else conflicts, any non-empty
// symbol, the `semantic-refactor/<kind>` header). Every expected report below is written out by
// hand from those rules; only hashes are computed (hash-term of the hand-written patch and ops; the
// request's identity is tested in request.test.ts), and the comparison is of the canonical print,
// i.e. the exact stored bytes, so a planner change that moves one byte fails here.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CONFLICT_CODES } from '../../src/refactor/codes.js';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { planRefactor } from '../../src/refactor/plan.js';
import type { RefactorParams } from '../../src/refactor/request.js';
import { verifyRefactorReport } from '../../src/refactor/verify.js';
import { decodeRefactorRequest, refactorRequestTerm } from '../../src/refactor/request.js';
import { mapSet, kw, type Term } from '../../src/coreform/term.js';
import { requestOf } from './helpers.js';

const MODULES: readonly (readonly [string, string])[] = [
  ['a.gc', '(def lib::one 1)\n(def lib::fact (fn (n) (if n (prim int/mul n (lib::fact (prim int/sub n 1))) lib::one)))\n'],
  ['b.gc', '(def app::double (fn (x) (prim int/add x x)))\n(def app::main (app::double lib::one))\n(def app::late 5)\n'],
  ['c.gc', ';; a recursive helper\n(def app::loop (fn (n) (if n (app::loop (prim int/sub n 1)) app::late)))\n(def app::spin (fn (n) (app::spin n)))\n'],
];

const MESSAGE: Record<string, string> = {
  'refactor/kind-invalid': 'refactor kind must be rename, move, or extract',
  'refactor/source-symbol-invalid': 'source symbol must be a non-empty string',
  'refactor/destination-symbol-invalid': 'destination symbol must be a non-empty string',
  'refactor/no-op': 'source and destination symbols must differ',
  'refactor/source-symbol-missing': 'source symbol has no workspace definition',
  'refactor/source-symbol-ambiguous': 'source symbol has multiple workspace definitions',
  'refactor/destination-symbol-exists': 'destination symbol already has a workspace definition',
  'refactor/target-module-required': 'move and extract require a target module path',
  'refactor/target-module-invalid': 'target module path must be portable and package-relative',
  'refactor/target-module-exists': 'target module path already exists',
  'refactor/target-order-dependency': 'moved definition depends on a definition unavailable before the source module',
};

function params(refactorKind: string, fromSymbol: string, toSymbol: string, targetModulePath = ''): RefactorParams {
  return { refactorKind, fromSymbol, toSymbol, targetModulePath };
}

/** The canonical print of a term written as text. */
function canonical(text: string): string {
  return printTerm(readTerm(text));
}

/** The expected conflicted report: `[code, module-path]` pairs in report order. */
function conflictedReport(requestH: string, moduleCount: number, conflicts: [string, string][]): string {
  const records = conflicts.map(
    ([code, modulePath]) =>
      `{:code ${JSON.stringify(code)} :message ${JSON.stringify(MESSAGE[code])} :module-path ${JSON.stringify(modulePath)} :path-repr ""}`,
  );
  return canonical(
    `{:conflicts [${records.join(' ')}] :kind "genesis/refactor-plan-v0.1" :module-count ${moduleCount} :ok false :op-count 0 ` +
      `:op-identities [] :patch nil :patch-h "" :profile "genesis/patch-authority-v0.1" :replacement-count 0 ` +
      `:request-h "${requestH}" :safe-to-apply false :v 1}`,
  );
}

/** The expected safe report, with the normalized ops written out. */
function safeReport(requestH: string, moduleCount: number, p: RefactorParams, ops: string[], replacementCount: number): string {
  const patch =
    `{:intent "semantic-refactor/${p.refactorKind}" :ops [${ops.join(' ')}] ` +
    `:provenance {:from ${JSON.stringify(p.fromSymbol)} :kind :${p.refactorKind} :to ${JSON.stringify(p.toSymbol)} :tool "genesis semantic-edit refactor-plan"} :version 1}`;
  const ids = ops.map((op, i) => `{:op-h "${hashTerm(readTerm(op))}" :ordinal ${i}}`);
  return canonical(
    `{:conflicts [] :kind "genesis/refactor-plan-v0.1" :module-count ${moduleCount} :ok true :op-count ${ops.length} ` +
      `:op-identities [${ids.join(' ')}] :patch ${patch} :patch-h "${hashTerm(readTerm(patch))}" ` +
      `:profile "genesis/patch-authority-v0.1" :replacement-count ${replacementCount} :request-h "${requestH}" :safe-to-apply true :v 1}`,
  );
}

const rename = (path: string, from: string, to: string): string =>
  `{:from ${JSON.stringify(from)} :module-path ${JSON.stringify(path)} :op :rename-symbol :to ${JSON.stringify(to)}}`;
const split = (from: string, to: string, symbol: string): string =>
  `{:from-module-path ${JSON.stringify(from)} :op :split-module :symbols [${JSON.stringify(symbol)}] :to-module-path ${JSON.stringify(to)}}`;
const manifest = (paths: string[]): string =>
  `{:caps-policy nil :obligations-add [] :obligations-remove [] :op :update-manifest ` +
  `:set {:modules [${paths.map((p) => `{"hash" "" "path" ${JSON.stringify(p)}}`).join(' ')}]} :tests-add [] :tests-remove []}`;

/** Plans `p` over `modules`, checks the exact bytes, and checks the verifier accepts the report. */
function expectReport(p: RefactorParams, expected: (requestH: string, moduleCount: number) => string, modules = MODULES): void {
  const request = requestOf(p, modules);
  const plan = planRefactor(request);
  expect(printTerm(plan.report)).toBe(expected(request.requestH, modules.length));
  expect(verifyRefactorReport(plan.report, request).safe).toBe(plan.safe);
}

describe('safe reports', () => {
  test('rename lib::one → lib::uno: one op per module holding the symbol, the rename header', () => {
    const p = params('rename', 'lib::one', 'lib::uno');
    expectReport(p, (h, n) => safeReport(h, n, p, [rename('a.gc', 'lib::one', 'lib::uno'), rename('b.gc', 'lib::one', 'lib::uno')], 3));
  });

  test('move app::double into util.gc: renames, split, target-before-source manifest', () => {
    const p = params('move', 'app::double', 'util::double', 'util.gc');
    expectReport(p, (h, n) =>
      safeReport(
        h,
        n,
        p,
        [rename('b.gc', 'app::double', 'util::double'), split('b.gc', 'util.gc', 'util::double'), manifest(['a.gc', 'util.gc', 'b.gc', 'c.gc'])],
        2,
      ),
    );
  });

  test('extract lib::one into k.gc: the :extract header, target before the first module', () => {
    const p = params('extract', 'lib::one', 'k::one', 'k.gc');
    expectReport(p, (h, n) =>
      safeReport(
        h,
        n,
        p,
        [
          rename('a.gc', 'lib::one', 'k::one'),
          rename('b.gc', 'lib::one', 'k::one'),
          split('a.gc', 'k.gc', 'k::one'),
          manifest(['k.gc', 'a.gc', 'b.gc', 'c.gc']),
        ],
        3,
      ),
    );
  });

  test.each(['quote', '12', 'a b'])('renaming app::late to %j is safe: any non-empty string is a symbol', (to) => {
    const p = params('rename', 'app::late', to);
    expectReport(p, (h, n) => safeReport(h, n, p, [rename('b.gc', 'app::late', to), rename('c.gc', 'app::late', to)], 2));
  });
});

describe('conflicted reports: each code', () => {
  const cases: [string, RefactorParams, [string, string][], (readonly (readonly [string, string])[])?][] = [
    ['kind-invalid', params('inline', 'lib::one', 'lib::uno'), [['refactor/kind-invalid', '']]],
    // No definition is named "", so an empty source is always also missing (as in the reference).
    [
      'source-symbol-invalid',
      params('rename', '', 'lib::uno'),
      [
        ['refactor/source-symbol-invalid', ''],
        ['refactor/source-symbol-missing', ''],
      ],
    ],
    ['destination-symbol-invalid', params('rename', 'lib::one', ''), [['refactor/destination-symbol-invalid', '']]],
    [
      'no-op on an undefined symbol',
      params('rename', 'nope', 'nope'),
      [
        ['refactor/no-op', ''],
        ['refactor/source-symbol-missing', ''],
      ],
    ],
    [
      'no-op on a defined symbol (two conflicts)',
      params('rename', 'lib::one', 'lib::one'),
      [
        ['refactor/no-op', ''],
        ['refactor/destination-symbol-exists', ''],
      ],
    ],
    ['source-symbol-missing', params('rename', 'nope', 'lib::uno'), [['refactor/source-symbol-missing', '']]],
    [
      'source-symbol-ambiguous (once, however many definitions)',
      params('rename', 'lib::one', 'lib::uno'),
      [['refactor/source-symbol-ambiguous', '']],
      [...MODULES, ['d.gc', '(def lib::one 2)\n(def lib::one 3)\n']],
    ],
    [
      'destination-symbol-exists (once)',
      params('rename', 'lib::one', 'app::main'),
      [['refactor/destination-symbol-exists', '']],
      [...MODULES, ['d.gc', '(def app::main 2)\n']],
    ],
    ['target-module-required', params('move', 'app::double', 'util::double', ''), [['refactor/target-module-required', '']]],
    ['target-module-invalid', params('extract', 'app::double', 'util::double', '../util.gc'), [['refactor/target-module-invalid', '']]],
    ['target-module-exists', params('move', 'app::double', 'util::double', 'c.gc'), [['refactor/target-module-exists', '']]],
    // app::main's rhs names app::double, defined earlier in the source module b.gc.
    ['target-order-dependency', params('move', 'app::main', 'util::main', 'util.gc'), [['refactor/target-order-dependency', 'b.gc']]],
    // app::spin only refers to itself: a recursive definition cannot move.
    [
      'a recursive definition moved (order dependency on itself)',
      params('move', 'app::spin', 'util::spin', 'util.gc'),
      [['refactor/target-order-dependency', 'c.gc']],
    ],
    // lib::fact names lib::one (form 0) before itself (form 1): the first offending definition wins.
    [
      'order dependency: the first offending definition in module then form order',
      params('extract', 'lib::fact', 'm::fact', 'm.gc'),
      [['refactor/target-order-dependency', 'a.gc']],
    ],
    // app::loop names app::late in b.gc, an earlier module: no conflict from it; but itself, yes.
    [
      'order dependency: an earlier module is fine, the recursion is not',
      params('move', 'app::loop', 'util::loop', 'util.gc'),
      [['refactor/target-order-dependency', 'c.gc']],
    ],
    [
      'a move whose target exists and whose definition has a late dependency (two conflicts, no order dependency)',
      params('move', 'app::main', 'app::late', 'c.gc'),
      [
        ['refactor/destination-symbol-exists', ''],
        ['refactor/target-module-exists', ''],
      ],
    ],
    [
      'every applicable code once, in check order; no target checks for an invalid kind',
      params('copy', '', '', '../x.gc'),
      [
        ['refactor/kind-invalid', ''],
        ['refactor/source-symbol-invalid', ''],
        ['refactor/destination-symbol-invalid', ''],
        ['refactor/no-op', ''],
        ['refactor/source-symbol-missing', ''],
      ],
    ],
    [
      'target checks stop at the first: required hides invalid and exists',
      params('extract', 'nope', 'app::main', ''),
      [
        ['refactor/source-symbol-missing', ''],
        ['refactor/destination-symbol-exists', ''],
        ['refactor/target-module-required', ''],
      ],
    ],
    ['rename ignores the target entirely', params('rename', 'nope', 'x', '../bad.gc'), [['refactor/source-symbol-missing', '']]],
  ];
  test.each(cases)('%s', (_name, p, conflicts, modules) => {
    expectReport(p, (h, n) => conflictedReport(h, n, conflicts), modules ?? MODULES);
  });
});

describe('property: planner and independent verifier agree on the conflict rules', () => {
  const names = ['a', 'b', 'c', 'quote', '12', 'a b', ''];
  const rhs = fc.constantFrom('1', 'a', 'b', "'c", '(fn (x) (a x))', '[b c]', '{:k a}', '"a"');
  const moduleSource = fc
    .array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), rhs), { maxLength: 3 })
    .map((defs) => defs.map(([n, r]) => `(def ${n} ${r})\n`).join('') + '(a b)\n');
  test('every generated request: the report verifies; codes unique, in check order; order dependency alone', () => {
    fc.assert(
      fc.property(
        fc.array(moduleSource, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('rename', 'move', 'extract', 'inline'),
        fc.constantFrom(...names),
        fc.constantFrom(...names),
        fc.constantFrom('', 'new.gc', 'm0.gc', '../x.gc', 'a//b.gc'),
        (sources, refactorKind, fromSymbol, toSymbol, targetModulePath) => {
          const modules = sources.map((src, i) => [`m${i}.gc`, src] as const);
          const request = requestOf({ refactorKind, fromSymbol, toSymbol, targetModulePath }, modules);
          const plan = planRefactor(request);
          const verified = verifyRefactorReport(plan.report, request);
          expect(verified.safe).toBe(plan.safe);
          const codes = plan.conflicts.map((c) => c.code);
          expect(new Set(codes).size).toBe(codes.length);
          const order = codes.map((c) => CONFLICT_CODES.indexOf(c));
          expect([...order].sort((x, y) => x - y)).toEqual(order);
          // The order dependency is only ever reported alone.
          expect(codes.length > 1 ? codes : []).not.toContain('refactor/target-order-dependency');
          for (const c of plan.conflicts) {
            expect(c.message).toBe(MESSAGE[c.code]);
            expect(c.pathRepr).toBe('');
          }
          // Only the order dependency names a module.
          for (const c of plan.conflicts.filter((c) => c.code !== 'refactor/target-order-dependency')) expect(c.modulePath).toBe('');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('request fields that are not strings (admitted, as the reference does, and planned to conflicts)', () => {
  const base = requestOf(params('move', 'app::double', 'util::double', 'util.gc'), MODULES);
  const withFields = (fields: Record<string, string>): ReturnType<typeof decodeRefactorRequest> => {
    let t = refactorRequestTerm(params('move', 'app::double', 'util::double', 'util.gc'), base.modules);
    for (const [k, v] of Object.entries(fields)) t = mapSet(t, kw(k), readTerm(v) as Term);
    return decodeRefactorRequest(t);
  };
  test.each([
    ['kind a keyword', { 'refactor-kind': ':move' }, [['refactor/kind-invalid', '']]],
    // A symbol source matches no definition (definition names are compared as strings).
    [
      'source a symbol',
      { 'from-symbol': 'app::double' },
      [
        ['refactor/source-symbol-invalid', ''],
        ['refactor/source-symbol-missing', ''],
      ],
    ],
    ['destination an integer', { 'to-symbol': '7' }, [['refactor/destination-symbol-invalid', '']]],
    // Two equal non-strings are not a no-op: the no-op rule needs two strings.
    [
      'both symbols nil',
      { 'from-symbol': 'nil', 'to-symbol': 'nil' },
      [
        ['refactor/source-symbol-invalid', ''],
        ['refactor/destination-symbol-invalid', ''],
        ['refactor/source-symbol-missing', ''],
      ],
    ],
    ['target nil', { 'target-module-path': 'nil' }, [['refactor/target-module-required', '']]],
  ] as [string, Record<string, string>, [string, string][]][])('%s', (_name, fields, conflicts) => {
    const request = withFields(fields);
    const plan = planRefactor(request);
    expect(printTerm(plan.report)).toBe(conflictedReport(request.requestH, MODULES.length, conflicts));
    expect(verifyRefactorReport(plan.report, request).safe).toBe(false);
  });
});
