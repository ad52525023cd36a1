// Verifier tests: GenesisCode `docs/spec/SEMANTIC_REFACTOR_PLAN_v0.1.md` "Independent Host Verification". Every field of a
// safe report is mutated in turn, ops are reordered, duplicated, dropped and extended, and the
// manifest payload is changed; each mutation must be rejected with exit 50 and the named check.
import { describe, expect, test } from 'vitest';
import { hashTerm } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { FALSE, int, kw, kwMap, map, mapGetKw, mapSet, NIL, str, sym, TRUE, vec, type MapTerm, type Term } from '../../src/coreform/term.js';
import { planRefactor, type RefactorPlan } from '../../src/refactor/plan.js';
import type { RefactorParams } from '../../src/refactor/request.js';
import { VerifyCheck, verifyRefactorReport, type VerifyCheckName } from '../../src/refactor/verify.js';
import { GcError } from '../../src/util/errors.js';
import { requestOf, THREE_MODULES } from './helpers.js';

const SQUARE = 'app/math::square';

function plan(params: Partial<RefactorParams> = {}): RefactorPlan {
  return planRefactor(requestOf({ refactorKind: 'rename', fromSymbol: SQUARE, toSymbol: 'app/math::sq', ...params }, THREE_MODULES));
}

const MOVE = plan({ refactorKind: 'move', targetModulePath: 'lib/sq.gc' });
const RENAME = plan();
const CONFLICTED = plan({ toSymbol: 'app/math::cube' });

function set(m: Term, name: string, value: Term): MapTerm {
  return mapSet(m as MapTerm, kw(name), value);
}
function get(m: Term, name: string): Term {
  return mapGetKw(m as MapTerm, name)!;
}
function without(m: Term, name: string): MapTerm {
  return map((m as MapTerm).entries.filter(([k]) => !(k.kind === 'sym' && k.name === `:${name}`)));
}
function opsOf(report: Term): Term[] {
  return [...(get(get(report, 'patch'), 'ops') as unknown as { items: Term[] }).items];
}

/** Replaces the patch's ops and re-seals :patch-h, :op-count and :op-identities, so only semantic checks can object. */
function withOps(report: Term, ops: Term[]): MapTerm {
  const patch = set(get(report, 'patch'), 'ops', vec(ops));
  return withPatch(report, patch);
}
function withPatch(report: Term, patch: MapTerm): MapTerm {
  const ops = (get(patch, 'ops') as unknown as { items: Term[] }).items;
  let r = set(report, 'patch', patch);
  r = set(r, 'patch-h', str(hashTerm(patch)));
  r = set(r, 'op-count', int(ops.length));
  return set(r, 'op-identities', vec(ops.map((op, i) => kwMap({ 'op-h': str(hashTerm(op)), ordinal: int(i) }))));
}

/** The GcError that verifying `report` for `p`'s request throws (the test fails when it throws none). */
function verifyError(report: Term, p: RefactorPlan): GcError {
  let caught: unknown;
  try {
    verifyRefactorReport(report, p.request);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GcError);
  return caught as GcError;
}

function rejected(report: Term, p: RefactorPlan, check: VerifyCheckName): void {
  const e = verifyError(report, p);
  expect(e.code).toBe('refactor/verification-failed');
  expect(e.exitCode).toBe(50);
  expect(e.details?.check).toBe(check);
}

describe('accepts what the planner produces', () => {
  test.each([
    ['rename', RENAME],
    ['move', MOVE],
    ['extract', plan({ refactorKind: 'extract', targetModulePath: 'lib/sq.gc' })],
    ['conflicted', CONFLICTED],
  ] as const)('%s', (_, p) => {
    const v = verifyRefactorReport(p.report, p.request);
    expect(v.safe).toBe(p.safe);
    expect(v.replacementCount).toBe(p.replacementCount);
    expect(v.affectedModules).toEqual(p.affectedModules);
    // The request may also be given as a term (e.g. read from the evidence store).
    expect(verifyRefactorReport(readTerm(printTerm(p.report)), p.request.term).safe).toBe(p.safe);
  });
});

describe('every field of a safe report, mutated in turn', () => {
  const r = MOVE.report;
  const cases: [string, MapTerm, VerifyCheckName][] = [
    ['unknown extra key', set(r, 'extra', TRUE), VerifyCheck.reportShape],
    ['missing key', without(r, 'conflicts'), VerifyCheck.reportShape],
    [':kind', set(r, 'kind', str('genesis/refactor-plan-v0.2')), VerifyCheck.identity],
    [':kind type', set(r, 'kind', kw('x')), VerifyCheck.reportShape],
    [':profile', set(r, 'profile', str('genesis/patch-authority-v0.2')), VerifyCheck.identity],
    [':v', set(r, 'v', int(2)), VerifyCheck.identity],
    [':request-h', set(r, 'request-h', str(hashTerm(NIL))), VerifyCheck.requestH],
    [':request-h type', set(r, 'request-h', NIL), VerifyCheck.reportShape],
    [':ok', set(r, 'ok', FALSE), VerifyCheck.status],
    [':safe-to-apply', set(r, 'safe-to-apply', FALSE), VerifyCheck.status],
    [':ok and :safe-to-apply both false', set(set(r, 'ok', FALSE), 'safe-to-apply', FALSE), VerifyCheck.status],
    [':module-count', set(r, 'module-count', int(4)), VerifyCheck.moduleCount],
    [':module-count negative', set(r, 'module-count', int(-1)), VerifyCheck.reportShape],
    [':replacement-count', set(r, 'replacement-count', int(5)), VerifyCheck.replacementCount],
    [':replacement-count zero', set(r, 'replacement-count', int(0)), VerifyCheck.safeShape],
    [':op-count', set(r, 'op-count', int(3)), VerifyCheck.opCount],
    [':op-count zero', set(r, 'op-count', int(0)), VerifyCheck.safeShape],
    [
      ':op-identities dropped',
      set(r, 'op-identities', vec((get(r, 'op-identities') as unknown as { items: Term[] }).items.slice(1))),
      VerifyCheck.opIdentities,
    ],
    [
      ':op-identities reordered',
      set(r, 'op-identities', vec([...(get(r, 'op-identities') as unknown as { items: Term[] }).items].reverse())),
      VerifyCheck.opIdentities,
    ],
    [
      ':op-identities wrong hash',
      set(
        r,
        'op-identities',
        vec((get(r, 'op-identities') as unknown as { items: MapTerm[] }).items.map((id, i) => (i === 2 ? set(id, 'op-h', str(hashTerm(NIL))) : id))),
      ),
      VerifyCheck.opIdentities,
    ],
    [
      ':conflicts non-empty',
      set(r, 'conflicts', vec([kwMap({ code: str('refactor/no-op'), message: str('x'), 'module-path': str(''), 'path-repr': str('') })])),
      VerifyCheck.status,
    ],
    [
      ':conflicts unknown code',
      set(
        set(set(r, 'ok', FALSE), 'safe-to-apply', FALSE),
        'conflicts',
        vec([kwMap({ code: str('refactor/other'), message: str('x'), 'module-path': str(''), 'path-repr': str('') })]),
      ),
      VerifyCheck.conflicts,
    ],
    [':patch nil', set(r, 'patch', NIL), VerifyCheck.safeShape],
    [':patch changed (unsealed)', set(r, 'patch', set(get(r, 'patch'), 'intent', str('other'))), VerifyCheck.patchH],
    [':patch-h', set(r, 'patch-h', str(hashTerm(NIL))), VerifyCheck.patchH],
    [':patch-h empty', set(r, 'patch-h', str('')), VerifyCheck.patchH],
    [':intent (resealed)', withPatch(r, set(get(r, 'patch'), 'intent', str('refactor move'))), VerifyCheck.patchHeader],
    [':provenance (resealed)', withPatch(r, set(get(r, 'patch'), 'provenance', kwMap({}))), VerifyCheck.patchHeader],
    [
      ':provenance extra key (resealed)',
      withPatch(r, set(get(r, 'patch'), 'provenance', set(get(get(r, 'patch'), 'provenance'), 'by', str('me')))),
      VerifyCheck.patchHeader,
    ],
    [':version (resealed)', withPatch(r, set(get(r, 'patch'), 'version', int(2))), VerifyCheck.patchNormalized],
    [
      'non-normalized :update-manifest (resealed)',
      withOps(
        r,
        opsOf(r).map((op, i) => (i === 3 ? without(op, 'tests-add') : op)),
      ),
      VerifyCheck.manifestPayload,
    ],
    [
      'non-normalized :rename-symbol (symbol operand, resealed)',
      withOps(
        r,
        opsOf(r).map((op, i) => (i === 0 ? set(op, 'from', sym(SQUARE)) : op)),
      ),
      VerifyCheck.renameOperands,
    ],
    [
      'non-normalized :split-module (symbol in :symbols, resealed)',
      withOps(
        r,
        opsOf(r).map((op, i) => (i === 2 ? set(op, 'symbols', vec([sym('app/math::sq')])) : op)),
      ),
      VerifyCheck.split,
    ],
    ['extra patch key (resealed)', withPatch(r, set(get(r, 'patch'), 'note', str('x'))), VerifyCheck.patchNormalized],
    ['missing :provenance (resealed)', withPatch(r, without(get(r, 'patch'), 'provenance')), VerifyCheck.patchNormalized],
  ];
  test.each(cases)('%s', (_, mutated, check) => rejected(mutated, MOVE, check));

  test('a report for another request', () => {
    rejected(MOVE.report, RENAME, VerifyCheck.requestH);
  });
});

describe('ops reordered, duplicated, dropped, extended (re-sealed so only the op checks can object)', () => {
  const r = MOVE.report;
  const o = opsOf(r);
  const rename = (path: string, from = SQUARE, to = 'app/math::sq'): MapTerm =>
    kwMap({ op: kw('rename-symbol'), 'module-path': str(path), from: str(from), to: str(to) });
  const cases: [string, Term[], VerifyCheckName][] = [
    ['renames swapped', [o[1]!, o[0]!, o[2]!, o[3]!], VerifyCheck.renameOrder],
    ['split and manifest swapped', [o[0]!, o[1]!, o[3]!, o[2]!], VerifyCheck.manifestPayload],
    ['rename after split', [o[0]!, o[2]!, o[1]!, o[3]!], VerifyCheck.affectedModules],
    ['rename duplicated', [o[0]!, o[0]!, o[1]!, o[2]!, o[3]!], VerifyCheck.renameDuplicate],
    ['split duplicated', [o[0]!, o[1]!, o[2]!, o[2]!, o[3]!], VerifyCheck.split],
    ['manifest duplicated', [...o, o[3]!], VerifyCheck.manifestPayload],
    ['first rename dropped', [o[1]!, o[2]!, o[3]!], VerifyCheck.affectedModules],
    ['last rename dropped', [o[0]!, o[2]!, o[3]!], VerifyCheck.affectedModules],
    ['split dropped', [o[0]!, o[1]!, o[3]!], VerifyCheck.manifestPayload],
    ['manifest dropped', [o[0]!, o[1]!, o[2]!], VerifyCheck.opOrder],
    [
      'extra :replace-node',
      [...o.slice(0, 2), readTerm('{:op :replace-node :module-path "lib/math.gc" :path [[:form 0]] :new 1}'), ...o.slice(2)],
      VerifyCheck.opUnsupported,
    ],
    ['extra :replace-node at the end', [...o, readTerm('{:op :replace-node :module-path "lib/math.gc" :path [[:form 0]] :new 1}')], VerifyCheck.opUnsupported],
    ['rename of an unaffected module', [o[0]!, rename('lib/text.gc'), o[1]!, o[2]!, o[3]!], VerifyCheck.affectedModules],
    ['rename of an unknown module', [o[0]!, o[1]!, rename('nope.gc'), o[2]!, o[3]!], VerifyCheck.affectedModules],
    ['rename :from changed', [rename('lib/math.gc', 'app/math::cube'), o[1]!, o[2]!, o[3]!], VerifyCheck.renameOperands],
    ['rename :to changed', [o[0]!, rename('app/main.gc', SQUARE, 'other'), o[2]!, o[3]!], VerifyCheck.renameOperands],
    ['split source changed', [o[0]!, o[1]!, set(o[2]!, 'from-module-path', str('app/main.gc')), o[3]!], VerifyCheck.split],
    ['split target changed', [o[0]!, o[1]!, set(o[2]!, 'to-module-path', str('lib/other.gc')), o[3]!], VerifyCheck.split],
    ['split symbols changed', [o[0]!, o[1]!, set(o[2]!, 'symbols', vec([str('app/math::sq'), str('app/math::x')])), o[3]!], VerifyCheck.split],
    ['split of the old name', [o[0]!, o[1]!, set(o[2]!, 'symbols', vec([str(SQUARE)])), o[3]!], VerifyCheck.split],
    [
      'an extra :move-module',
      [...o.slice(0, 3), readTerm('{:op :move-module :from-module-path "lib/text.gc" :to-module-path "t.gc"}'), o[3]!],
      VerifyCheck.opUnsupported,
    ],
  ];
  test.each(cases)('%s', (_, ops, check) => rejected(withOps(r, ops), MOVE, check));

  test('a rename plan may not carry a split or a manifest update', () => {
    const ro = opsOf(RENAME.report);
    rejected(withOps(RENAME.report, [...ro, o[2]!]), RENAME, VerifyCheck.opUnsupported);
    rejected(withOps(RENAME.report, [...ro, o[3]!]), RENAME, VerifyCheck.opUnsupported);
  });
});

describe('the manifest payload changed', () => {
  const r = MOVE.report;
  const o = opsOf(r);
  const manifest = o[3] as MapTerm;
  const records = (get(get(manifest, 'set'), 'modules') as unknown as { items: Term[] }).items;
  const withSet = (setValue: Term, extra: Record<string, Term> = {}): Term[] => {
    let op = set(manifest, 'set', setValue);
    for (const [k, v] of Object.entries(extra)) op = set(op, k, v);
    return [o[0]!, o[1]!, o[2]!, op];
  };
  const rec = (path: string, hash = ''): Term =>
    map([
      [str('hash'), str(hash)],
      [str('path'), str(path)],
    ]);
  const cases: [string, Term[]][] = [
    ['target after source', withSet(kwMap({ modules: vec([records[1]!, records[0]!, records[2]!, records[3]!]) }))],
    ['target appended', withSet(kwMap({ modules: vec([records[1]!, records[2]!, records[3]!, records[0]!]) }))],
    ['a module dropped', withSet(kwMap({ modules: vec(records.slice(0, 3)) }))],
    ['an unrelated module added', withSet(kwMap({ modules: vec([...records, rec('x.gc')]) }))],
    ['a pinned hash', withSet(kwMap({ modules: vec([rec('lib/sq.gc', 'ab'), ...records.slice(1)]) }))],
    [
      'a record with an extra field',
      withSet(
        kwMap({
          modules: vec([
            map([
              [str('hash'), str('')],
              [str('path'), str('lib/sq.gc')],
              [str('x'), str('')],
            ]),
            ...records.slice(1),
          ]),
        }),
      ),
    ],
    ['an extra :set key', withSet(kwMap({ modules: vec(records), name: str('renamed') }))],
    ['nil :set', withSet(NIL)],
    ['obligations added', withSet(get(manifest, 'set'), { 'obligations-add': vec([str('x')]) })],
    ['tests removed', withSet(get(manifest, 'set'), { 'tests-remove': vec([str('x')]) })],
    ['caps policy', withSet(get(manifest, 'set'), { 'caps-policy': str('caps.toml') })],
  ];
  test.each(cases)('%s', (_, ops) => rejected(withOps(r, ops), MOVE, VerifyCheck.manifestPayload));
});

describe('conflicted reports', () => {
  const r = CONFLICTED.report;
  test.each([
    ['carries a patch', set(r, 'patch', get(MOVE.report, 'patch')), VerifyCheck.conflictedShape],
    ['carries a patch-h', set(r, 'patch-h', get(MOVE.report, 'patch-h')), VerifyCheck.conflictedShape],
    ['carries op identities', set(r, 'op-identities', get(MOVE.report, 'op-identities')), VerifyCheck.conflictedShape],
    ['non-zero replacement count', set(r, 'replacement-count', int(1)), VerifyCheck.conflictedShape],
    ['non-zero op count', set(r, 'op-count', int(1)), VerifyCheck.conflictedShape],
    ['claims ok', set(set(r, 'ok', TRUE), 'safe-to-apply', TRUE), VerifyCheck.status],
    ['empty conflicts', set(r, 'conflicts', vec([])), VerifyCheck.status],
    [
      'conflict record with an extra key',
      set(r, 'conflicts', vec([set((get(r, 'conflicts') as unknown as { items: Term[] }).items[0]!, 'hint', str(''))])),
      VerifyCheck.reportShape,
    ],
    [
      'conflict in an unknown module',
      set(r, 'conflicts', vec([set((get(r, 'conflicts') as unknown as { items: Term[] }).items[0]!, 'module-path', str('ghost.gc'))])),
      VerifyCheck.conflicts,
    ],
  ] as const)('%s', (_, mutated, check) => rejected(mutated, CONFLICTED, check));
});

describe('the conflict rules (docs/reference/patch-protocols.md §3.10), checked independently', () => {
  const r = CONFLICTED.report;
  const conflict = (code: string, message: string, modulePath = ''): MapTerm =>
    kwMap({ code: str(code), message: str(message), 'module-path': str(modulePath), 'path-repr': str('') });
  const exists = conflict('refactor/destination-symbol-exists', 'destination symbol already has a workspace definition');
  test.each([
    ['a message changed', [conflict('refactor/destination-symbol-exists', 'destination exists')]],
    ['a location added', [conflict('refactor/destination-symbol-exists', 'destination symbol already has a workspace definition', 'lib/math.gc')]],
    ['a conflict repeated', [exists, exists]],
    ['another code instead', [conflict('refactor/no-op', 'source and destination symbols must differ')]],
    [
      'an extra order dependency',
      [exists, conflict('refactor/target-order-dependency', 'moved definition depends on a definition unavailable before the source module', 'lib/math.gc')],
    ],
  ] as const)('%s', (_, conflicts) => rejected(set(r, 'conflicts', vec([...conflicts])), CONFLICTED, VerifyCheck.conflictRules));

  test('a safe report is rejected when the destination is already defined', () => {
    // Take the safe rename's report, and verify it against a request whose destination exists.
    const bad = plan({ toSymbol: 'app/math::cube' });
    const forged = set(
      withOps(
        RENAME.report,
        opsOf(RENAME.report).map((op) => set(op, 'to', str('app/math::cube'))),
      ),
      'request-h',
      str(bad.request.requestH),
    );
    rejected(forged, bad, VerifyCheck.conflictRules);
  });

  test('a safe move of a recursive definition is rejected (it depends on itself)', () => {
    const modules = [['a.gc', '(def f (fn (n) (f n)))\n(def g (f 1))\n']] as const;
    const p = planRefactor(requestOf({ refactorKind: 'move', fromSymbol: 'f', toSymbol: 'h', targetModulePath: 't.gc' }, modules));
    expect(p.safe).toBe(false);
    const asRename = planRefactor(requestOf({ refactorKind: 'rename', fromSymbol: 'f', toSymbol: 'h' }, modules));
    // A rename-shaped safe report bound to the move request: the rules give a conflict.
    rejected(set(asRename.report, 'request-h', str(p.request.requestH)), p, VerifyCheck.conflictRules);
  });
});

describe('reports written by older gcpatch (old header, interpolated conflicts)', () => {
  function outdated(report: Term, p: RefactorPlan): GcError {
    const e = verifyError(report, p);
    expect(e.code).toBe('refactor/report-outdated');
    expect(e.exitCode).toBe(50);
    expect(e.details?.check).toBe(VerifyCheck.outdated);
    expect(e.message).toContain('gcpatch refactor plan');
    return e;
  }

  test('a safe report whose patch provenance names the request', () => {
    // The old header: `refactor <kind> <from> -> <to> into <target>` and the request's address.
    const old = withPatch(
      MOVE.report,
      set(
        set(get(MOVE.report, 'patch'), 'intent', str(`refactor move ${SQUARE} -> app/math::sq into lib/sq.gc`)),
        'provenance',
        kwMap({ 'refactor-plan-request': str(MOVE.request.address), 'refactor-plan-request-h': str(MOVE.request.requestH) }),
      ),
    );
    outdated(old, MOVE);
  });

  test('a conflicted report with a located conflict', () => {
    const c = kwMap({
      code: str('refactor/destination-symbol-exists'),
      message: str('destination symbol app/math::cube is already defined'),
      'module-path': str('lib/math.gc'),
      'path-repr': str('[\n  [:form 2]]'),
    });
    outdated(set(CONFLICTED.report, 'conflicts', vec([c])), CONFLICTED);
  });
});
