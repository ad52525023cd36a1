import { describe, expect, it } from 'vitest';
import { readTerm } from '../../../src/coreform/read.js';
import { hashTerm, semanticNodeId, termAddress } from '../../../src/coreform/hash.js';
import { int, kw, kwMap, list, map, NIL, str, sym, vec, type MapTerm, type Term } from '../../../src/coreform/term.js';
import { printTerm } from '../../../src/coreform/print.js';
import { normalizePatch, normalizeReport, normalizeRequest, normalizedOpFields, opIdentitiesTerm, OP_NAMES } from '../../../src/patch/protocol/normalize.js';
import { verifyNormalizeReport } from '../../../src/patch/protocol/normalize-verify.js';
import { codeOf } from '../helpers.js';

const step = (tag: string, ...args: Term[]) => vec([kw(tag), ...args]);

/** A pure.gcpatch-like patch (docs/reference/package-toml.md §6 item 1): two replace-node ops on forms 0 and 1. */
function pureLikePatch(): MapTerm {
  const meta = list(
    sym('def'),
    sym('::meta'),
    list(sym('quote'), kwMap({ caps: vec([]), exports: vec([sym('pkg/basic::tests')]), types: map([[sym('pkg/basic::tests'), sym('?')]]) })),
  );
  const suite = list(
    sym('def'),
    sym('pkg/basic::tests'),
    map([
      [
        str('now'),
        kwMap({
          body: list(sym('fn'), list(sym('_')), list(sym('core/effect::pure'), list(sym('prim'), sym('int/add'), int(1), int(2)))),
          expect: int(3),
        }),
      ],
    ]),
  );
  return kwMap({
    version: int(1),
    intent: str('pure-like: restate both forms'),
    provenance: map([]),
    ops: vec([
      kwMap({ op: kw('replace-node'), 'module-path': str('basic.gc'), path: vec([step('form', int(0))]), new: meta }),
      kwMap({ op: kw('replace-node'), 'module-path': str('basic.gc'), path: vec([step('form', int(1))]), new: suite }),
    ]),
  });
}

/** A change.gcpatch-like patch (docs/reference/package-toml.md §6 item 2): replace the literal 1 inside form 1 with 2. */
function changeLikePatch(): MapTerm {
  return kwMap({
    version: int(1),
    intent: str('change-like: set the value to 2'),
    provenance: kwMap({ suite: str('GC-CANONICAL-EXAMPLES-v0.1') }),
    ops: vec([
      kwMap({
        op: kw('replace-node'),
        'module-path': str('main.gc'),
        path: vec([step('form', int(1)), step('pair-cdr'), step('pair-cdr'), step('pair-car')]),
        new: int(2),
      }),
    ]),
  });
}

// The op maps are rebuilt from the descriptions of docs/reference/package-toml.md §6 items 1–2, and their op-h values
// are exactly the §3.2 vectors (c881…f017, 2fd9…3e1e, 5d0b…9708). The notes do not give the
// patches' :intent strings, so the whole-patch patch-h and store address below are this
// implementation's computed values for our own intents (not the notes' 752d…/35a1… vectors).
describe('normalize vectors (docs/reference/patch-protocols.md §3.2)', () => {
  it('pure-like patch: already normal, so patch-h = source-patch-h', () => {
    const n = normalizePatch(pureLikePatch());
    expect(n.patchH).toBe(n.sourcePatchH);
    expect(n.patchH).toBe('4cfda570775b996a4c4279bbc5cf6175da25fc0847eb3cb2ad91ac1b357ec3f9');
    expect(n.opIdentities).toEqual([
      { ordinal: 0, opH: 'c881c67a58e3ad70e87c8692b0397122176ce18fe20a9451c138dad8c35af017' },
      { ordinal: 1, opH: '2fd989ca1dd8f8b5f8c97661edf4a9abc0fc354f331542f485d0482d927c3e1e' },
    ]);
    expect(termAddress(n.normalized)).toBe('e045fe1d4d00628f00be775b8f95a37ff7aabd7c4ebcb518410326a86fc32e10');
    expect(n.opIdentities[0]!.opH).toBe(hashTerm(n.ops[0]!));
  });
  it('change-like patch', () => {
    const n = normalizePatch(changeLikePatch());
    expect(n.patchH).toBe(n.sourcePatchH);
    expect(n.patchH).toBe('092f8b5132d81f1631d431300a3ab653b0adea6e93284c6fabda580a9c14fd65');
    expect(n.opIdentities).toEqual([{ ordinal: 0, opH: '5d0b1c12fc494013b31ec2c28c3893de05b5254c014a9c3782f1bd10631b9708' }]);
    expect(termAddress(n.normalized)).toBe('b5d4588642aa63ab2fbab92339e404403e2235a837c68dc37f76b3826f70607d');
  });
  it('reading the same patch from source text gives the same identities', () => {
    const text = printTerm(changeLikePatch());
    expect(normalizePatch(readTerm(text)).patchH).toBe(normalizePatch(changeLikePatch()).patchH);
  });
});

describe('node-id vectors (docs/reference/hashing.md §2)', () => {
  it('main.gc [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]', () => {
    const path = vec([step('form', int(1)), step('pair-cdr'), step('pair-cdr'), step('pair-car')]);
    expect(semanticNodeId('main.gc', path)).toBe('aa6e400ccab85383b39a032955e3025cd4e9f16207219f1076241861dc9f9a01');
  });
  it('main.gc [[:form 0]]', () => {
    expect(semanticNodeId('main.gc', vec([step('form', int(0))]))).toBe('edb76fec26d9bf63dbf862e13d48d54792b1fb26cc33343d1ca1309e9885e681');
  });
});

describe('normalization rules', () => {
  it('converts identifiers to strings, sorts and dedups sets, materializes optional fields', () => {
    const n = normalizePatch(
      readTerm(`{:version 1 :intent "" :provenance {:who "me"} :ops [
        {:op :rename-symbol :module-path "a.gc" :from old/x :to "new/x"}
        {:op :rewrite-imports :module-path "a.gc" :add [b "a" b é z]}
        {:op :update-manifest}
        {:op :split-module :from-module-path "a.gc" :to-module-path "b.gc" :symbols ["q" p q]}
        {:op :rewrite-exports :module-path "a.gc" :replace [y x] :remove [] :add [x]}]}`),
    );
    expect(printTerm(n.ops[0]!)).toBe('{\n  :from "old/x"\n  :module-path "a.gc"\n  :op :rename-symbol\n  :to "new/x"}');
    expect(printTerm(n.ops[1]!)).toBe(
      '{\n  :add\n    [\n      "a"\n      "b"\n      "z"\n      "é"]\n  :module-path "a.gc"\n  :op :rewrite-imports\n  :remove []\n  :replace nil}',
    );
    expect(printTerm(n.ops[2]!)).toBe(
      '{\n  :caps-policy nil\n  :obligations-add []\n  :obligations-remove []\n  :op :update-manifest\n  :set nil\n  :tests-add []\n  :tests-remove []}',
    );
    expect(printTerm(n.ops[3]!)).toContain(':symbols ["p" "q"]');
    expect(printTerm(n.ops[4]!)).toContain(':replace ["x" "y"]');
    // normalization is idempotent: a normalized patch normalizes to itself
    const again = normalizePatch(n.normalized);
    expect(again.patchH).toBe(n.patchH);
    expect(again.sourcePatchH).toBe(again.patchH);
  });
  it('sorts sets by UTF-8 bytes, not UTF-16 units', () => {
    const n = normalizePatch(readTerm('{:version 1 :intent "" :provenance {} :ops [{:op :rewrite-exports :module-path "a.gc" :add ["\uffff" "😀"]}]}'));
    const add = (n.ops[0]!.entries.find(([k]) => (k as { name: string }).name === ':add')![1] as unknown as { items: { value: string }[] }).items;
    expect(add.map((x) => x.value)).toEqual(['\uffff', '😀']);
  });
  it('every op has its documented normalized field set', () => {
    expect(OP_NAMES.length).toBe(11);
    expect(normalizedOpFields('update-manifest')).toEqual(['caps-policy', 'obligations-add', 'obligations-remove', 'op', 'set', 'tests-add', 'tests-remove']);
    expect(normalizedOpFields('replace-node-id')).toEqual(['module-path', 'new', 'node-id', 'op']);
  });
  it('opIdentitiesTerm', () => {
    expect(printTerm(opIdentitiesTerm([{ ordinal: 0, opH: 'ab' }]))).toBe('[\n  {:op-h "ab" :ordinal 0}]');
  });
});

describe('rejections', () => {
  const wrap = (op: string) => `{:version 1 :intent "" :provenance {} :ops [${op}]}`;
  const cases: [string, string, string][] = [
    ['unknown op', wrap('{:op :replace :module-path "a.gc"}'), 'patch/unknown-op'],
    ['op given as string', wrap('{:op "replace-node"}'), 'patch/wrong-type'],
    ['missing :op', wrap('{:module-path "a.gc"}'), 'patch/missing-field'],
    ['unknown op field', wrap('{:op :remove-module :module-path "a.gc" :force true}'), 'patch/unknown-field'],
    ['missing op field', wrap('{:op :rename-symbol :module-path "a.gc" :from a}'), 'patch/missing-field'],
    ['wrong type: module-path symbol', wrap('{:op :remove-module :module-path a.gc}'), 'patch/wrong-type'],
    ['wrong type: set not a vector', wrap('{:op :rewrite-imports :module-path "a.gc" :add x}'), 'patch/wrong-type'],
    ['wrong type: set element int', wrap('{:op :rewrite-imports :module-path "a.gc" :add [1]}'), 'patch/wrong-type'],
    ['wrong type: content', wrap('{:op :add-module :module-path "a.gc" :content 3}'), 'patch/wrong-type'],
    ['wrong type: node-id', wrap('{:op :replace-node-id :module-path "a.gc" :node-id "abc" :new 1}'), 'patch/wrong-type'],
    ['wrong type: caps-policy', wrap('{:op :update-manifest :caps-policy 1}'), 'patch/wrong-type'],
    ['empty identifier', wrap('{:op :rename-symbol :module-path "a.gc" :from "" :to b}'), 'patch/empty-identifier'],
    ['empty split symbols', wrap('{:op :split-module :from-module-path "a.gc" :to-module-path "b.gc" :symbols []}'), 'patch/empty-identifier'],
    ['non-portable: absolute', wrap('{:op :remove-module :module-path "/a.gc"}'), 'patch/non-portable-path'],
    ['non-portable: ..', wrap('{:op :remove-module :module-path "x/../a.gc"}'), 'patch/non-portable-path'],
    ['non-portable: .', wrap('{:op :remove-module :module-path "./a.gc"}'), 'patch/non-portable-path'],
    ['non-portable: drive prefix', wrap('{:op :remove-module :module-path "C:/a.gc"}'), 'patch/non-portable-path'],
    ['non-portable: backslash', wrap('{:op :remove-module :module-path "a\\\\b.gc"}'), 'patch/non-portable-path'],
    ['non-portable: empty', wrap('{:op :remove-module :module-path ""}'), 'patch/non-portable-path'],
    ['non-portable: trailing /', wrap('{:op :move-module :from-module-path "a.gc" :to-module-path "b/"}'), 'patch/non-portable-path'],
    ['non-NFC path', wrap('{:op :remove-module :module-path "cafe\\u0301.gc"}'), 'patch/non-portable-path'],
    ['empty :path', wrap('{:op :replace-node :module-path "a.gc" :path [] :new 1}'), 'patch/invalid-path'],
    ['bad path step [0]', wrap('{:op :replace-node :module-path "a.gc" :path [0] :new 1}'), 'patch/invalid-path'],
    ['path not starting with :form', wrap('{:op :replace-node :module-path "a.gc" :path [[:vec 0]] :new 1}'), 'patch/invalid-path'],
    ['[:form] twice', wrap('{:op :replace-node :module-path "a.gc" :path [[:form 0] [:form 1]] :new 1}'), 'patch/invalid-path'],
    ['negative index', wrap('{:op :replace-node :module-path "a.gc" :path [[:form -1]] :new 1}'), 'patch/invalid-path'],
    ['unknown step tag', wrap('{:op :replace-node :module-path "a.gc" :path [[:form 0] [:car]] :new 1}'), 'patch/invalid-path'],
    ['version 2', '{:version 2 :intent "" :provenance {} :ops []}', 'patch/unsupported-version'],
    ['version as string', '{:version "1" :intent "" :provenance {} :ops []}', 'patch/wrong-type'],
    ['missing :intent', '{:version 1 :provenance {} :ops []}', 'patch/missing-field'],
    ['unknown top-level key', '{:version 1 :intent "" :provenance {} :ops [] :author "x"}', 'patch/unknown-field'],
    ['provenance not a map', '{:version 1 :intent "" :provenance [] :ops []}', 'patch/wrong-type'],
    ['ops not a vector', '{:version 1 :intent "" :provenance {} :ops {}}', 'patch/wrong-type'],
    ['patch not a map', '[1 2]', 'patch/wrong-type'],
    ['op not a map', wrap('[:op :remove-module]'), 'patch/wrong-type'],
  ];
  for (const [name, source, code] of cases) {
    it(`${name} → ${code}`, () => {
      expect(codeOf(() => normalizePatch(readTerm(source)))).toBe(code);
    });
  }
});

describe('patch-normalize request/report and its verifier', () => {
  it('the report is closed with the fixed values and verifies', () => {
    const request = normalizeRequest(changeLikePatch());
    const report = normalizeReport(request);
    expect(report.entries.map(([k]) => (k as { name: string }).name)).toEqual([
      ':kind',
      ':normalized-patch',
      ':ok',
      ':op-identities',
      ':patch-h',
      ':profile',
      ':source-patch-h',
      ':v',
    ]);
    const plan = verifyNormalizeReport(request, report);
    expect(plan.patchH).toBe(normalizePatch(changeLikePatch()).patchH);
  });
  it('rejects a malformed request', () => {
    expect(codeOf(() => normalizeReport(kwMap({ kind: str('x'), patch: NIL, profile: str('genesis/patch-authority-v0.1'), v: int(1) })))).toBe(
      'core/closed/wrong-value',
    );
  });
  const source = readTerm(
    '{:version 1 :intent "i" :provenance {} :ops [{:op :rewrite-imports :module-path "a.gc" :add [b a]} {:op :remove-module :module-path "b.gc"}]}',
  );
  const request = normalizeRequest(source);
  const good = normalizeReport(request);
  const tamper = (f: (m: Map<string, Term>) => void): Term => {
    const m = new Map(good.entries.map(([k, v]) => [(k as { name: string }).name.slice(1), v] as [string, Term]));
    f(m);
    return kwMap(Object.fromEntries(m));
  };
  const bad: [string, Term][] = [
    ['extra key', tamper((m) => m.set('extra', NIL))],
    ['missing key', tamper((m) => m.delete('op-identities'))],
    ['wrong patch-h', tamper((m) => m.set('patch-h', str('0'.repeat(64))))],
    ['wrong source-patch-h', tamper((m) => m.set('source-patch-h', str('0'.repeat(64))))],
    ['reordered identities', tamper((m) => m.set('op-identities', vec([...(m.get('op-identities') as unknown as { items: Term[] }).items].reverse())))],
    [
      'dropped op',
      tamper((m) => {
        const np = normalizePatch(readTerm('{:version 1 :intent "i" :provenance {} :ops [{:op :remove-module :module-path "b.gc"}]}'));
        m.set('normalized-patch', np.normalized);
        m.set('patch-h', str(np.patchH));
        m.set('op-identities', opIdentitiesTerm(np.opIdentities));
      }),
    ],
    [
      'unsorted set (repaired op)',
      tamper((m) => {
        const src = readTerm(
          '{:version 1 :intent "i" :provenance {} :ops [{:op :rewrite-imports :module-path "a.gc" :add ["b" "a"] :remove [] :replace nil} {:op :remove-module :module-path "b.gc"}]}',
        );
        m.set('normalized-patch', src);
        m.set('patch-h', str(hashTerm(src)));
        const ops = (src as MapTerm).entries.find(([k]) => (k as { name: string }).name === ':ops')![1] as unknown as { items: Term[] };
        m.set('op-identities', opIdentitiesTerm(ops.items.map((op, ordinal) => ({ ordinal, opH: hashTerm(op) }))));
      }),
    ],
    ['ok false', tamper((m) => m.set('ok', { kind: 'bool', value: false }))],
  ];
  for (const [name, report] of bad) {
    it(`rejects: ${name}`, () => {
      expect(codeOf(() => verifyNormalizeReport(request, report))).toBe('patch/report-mismatch');
    });
  }
});
