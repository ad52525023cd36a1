import { describe, expect, it } from 'vitest';
import { printModule, printTerm } from '../../../src/coreform/print.js';
import { readTerm } from '../../../src/coreform/read.js';
import { hashModule, semanticNodeId } from '../../../src/coreform/hash.js';
import { int, kw, mapGet, vec } from '../../../src/coreform/term.js';
import { applyOpsInMemory } from '../../../src/patch/ops/apply-ops.js';
import { normalizePatch } from '../../../src/patch/protocol/normalize.js';
import { packState } from '../../../src/patch/apply/pack.js';
import { manifestModulePaths, packageStateFromSources, type PackageState } from '../../../src/patch/protocol/state.js';
import { codeOf } from '../helpers.js';

const MANIFEST = `schema = 1
name = "ops"
version = "1.0.0"
obligations = []

[[modules]]
path = "a.gc"

[[modules]]
path = "b.gc"
`;

function state(a: string, b = '(def pkg/b::x 1)\n'): PackageState {
  return packageStateFromSources(MANIFEST, { 'a.gc': a, 'b.gc': b });
}
function run(s: PackageState, ops: string) {
  return applyOpsInMemory(s, normalizePatch(readTerm(`{:version 1 :intent "" :provenance {} :ops [${ops}]}`)));
}
const text = (s: PackageState, path: string) => printModule(s.modules.get(path)!);

describe('replace-node / replace-node-id', () => {
  const a = `(def ::meta '{:exports [pkg/a::v]})\n(def pkg/a::v 1)\npkg/a::v\n`;
  it('replaces the literal inside a def and re-canonicalizes', () => {
    const r = run(state(a), `{:op :replace-node :module-path "a.gc" :path [[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]] :new (f x y)}`);
    expect(text(r.state, 'a.gc')).toContain('(def pkg/a::v ((f x) y))');
    const edit = r.semanticEdits[0]!;
    expect(mapGet(edit, kw('node-id'))).toEqual({
      kind: 'str',
      value: semanticNodeId('a.gc', readTerm('[[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]')),
    });
  });
  it('replace-node-id resolves through the node index', () => {
    const id = semanticNodeId('a.gc', readTerm('[[:form 1] [:pair-cdr] [:pair-cdr] [:pair-car]]'));
    const r = run(state(a), `{:op :replace-node-id :module-path "a.gc" :node-id "${id}" :new 2}`);
    expect(text(r.state, 'a.gc')).toContain('(def pkg/a::v 2)');
  });
  it('[:map key] and [:vec i] steps', () => {
    const r = run(
      state(`(def pkg/a::m '{:k [1 2 3]})\n`),
      `{:op :replace-node :module-path "a.gc" :path [[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car] [:pair-cdr] [:pair-car] [:map :k] [:vec 2]] :new 9}`,
    );
    expect(text(r.state, 'a.gc')).toContain('[1 2 9]');
  });
  const errs: [string, string, string][] = [
    ['[:form 99]', '[[:form 99]]', 'patch/form-index-out-of-range'],
    ['missing map key', '[[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car] [:pair-cdr] [:pair-car] [:map :nope]]', 'patch/map-key-missing'],
    ['vec index', '[[:form 0] [:pair-cdr] [:pair-cdr] [:pair-car] [:pair-cdr] [:pair-car] [:map :k] [:vec 3]]', 'patch/vec-index-out-of-range'],
    ['pair step on an atom', '[[:form 0] [:pair-car] [:pair-car]]', 'patch/path-step-mismatch'],
  ];
  for (const [name, path, code] of errs) {
    it(`${name} → ${code}`, () => {
      expect(codeOf(() => run(state(`(def pkg/a::m '{:k [1 2 3]})\n`), `{:op :replace-node :module-path "a.gc" :path ${path} :new 0}`))).toBe(code);
    });
  }
  it('unknown node id', () => {
    expect(codeOf(() => run(state(a), `{:op :replace-node-id :module-path "a.gc" :node-id "${'0'.repeat(64)}" :new 2}`))).toBe('patch/unknown-node-id');
  });
  it('a replacement that does not canonicalize is rejected', () => {
    expect(codeOf(() => run(state(a), `{:op :replace-node :module-path "a.gc" :path [[:form 1]] :new (fn () 1)}`))).toBe('patch/canonicalize');
  });
  it('missing module', () => {
    expect(codeOf(() => run(state(a), `{:op :replace-node :module-path "z.gc" :path [[:form 0]] :new 1}`))).toBe('patch/module-missing');
  });
});

describe('add/remove/move/split modules and the manifest', () => {
  it('add-module from source and from forms, appended to the manifest with an empty pin', () => {
    const r = run(state('x\n'), `{:op :add-module :module-path "c.gc" :content "(f a b) ; c\\n"} {:op :add-module :module-path "d/e.gc" :content [(g a b)]}`);
    expect(text(r.state, 'c.gc')).toBe('((f a) b)\n');
    expect(text(r.state, 'd/e.gc')).toBe('((g a) b)\n');
    expect(manifestModulePaths(r.state.manifest)).toEqual(['a.gc', 'b.gc', 'c.gc', 'd/e.gc']);
    expect(r.semanticEdits).toEqual([]);
  });
  it('add-module onto an existing module fails', () => {
    expect(codeOf(() => run(state('x\n'), `{:op :add-module :module-path "a.gc" :content ""}`))).toBe('patch/module-exists');
  });
  it('remove-module drops the file and its manifest entry', () => {
    const r = run(state('x\n'), `{:op :remove-module :module-path "a.gc"}`);
    expect(r.state.modules.has('a.gc')).toBe(false);
    expect(manifestModulePaths(r.state.manifest)).toEqual(['b.gc']);
  });
  it('move-module keeps the manifest position', () => {
    const r = run(state('x\n'), `{:op :move-module :from-module-path "a.gc" :to-module-path "sub/a.gc"}`);
    expect(manifestModulePaths(r.state.manifest)).toEqual(['sub/a.gc', 'b.gc']);
    expect(text(r.state, 'sub/a.gc')).toBe('x\n');
    expect(codeOf(() => run(state('x\n'), `{:op :move-module :from-module-path "a.gc" :to-module-path "b.gc"}`))).toBe('patch/module-exists');
  });
  it('split-module moves the listed defs in source order', () => {
    const r = run(
      state('(def p::a 1)\n(def p::b 2)\n(def p::c 3)\np::a\n'),
      `{:op :split-module :from-module-path "a.gc" :to-module-path "n.gc" :symbols [p::c p::a]}`,
    );
    expect(text(r.state, 'a.gc')).toBe('(def p::b 2)\n\np::a\n');
    expect(text(r.state, 'n.gc')).toBe('(def p::a 1)\n\n(def p::c 3)\n');
    expect(manifestModulePaths(r.state.manifest)).toEqual(['a.gc', 'b.gc', 'n.gc']);
    const detail = mapGet(r.semanticEdits[0]!, kw('detail'))!;
    expect(printTerm(detail)).toContain(':moved-count 2');
    expect(codeOf(() => run(state('(def p::a 1)\n'), `{:op :split-module :from-module-path "a.gc" :to-module-path "n.gc" :symbols [p::z]}`))).toBe(
      'patch/split-symbol-missing',
    );
  });
  it('update-manifest: set, caps-policy, sorted obligation and test lists', () => {
    const r = run(
      state('x\n'),
      `{:op :update-manifest :set {:description "d" "limits" {:step_limit 5} :flags [true false]} :caps-policy "caps.toml"
        :obligations-add [z/o::b "a/o::a"] :tests-add [t::x] :tests-remove [t::y]}`,
    );
    const m = r.state.manifest;
    expect(m.description).toBe('d');
    expect(m.limits).toEqual({ step_limit: 5n });
    expect(m.flags).toEqual([true, false]);
    expect(m.caps_policy).toBe('caps.toml');
    expect(m.obligations).toEqual(['a/o::a', 'z/o::b']);
    expect(m.tests).toEqual(['t::x']);
    expect(codeOf(() => run(state('x\n'), `{:op :update-manifest :set {:x nil}}`))).toBe('patch/manifest-value');
    expect(codeOf(() => run(state('x\n'), `{:op :update-manifest :set {:x sym}}`))).toBe('patch/manifest-value');
  });
  it('pack re-pins every module and builds the package record', () => {
    const s = state('(def p::a 1)\n');
    const packed = packState(s);
    expect(packed.pins.get('a.gc')).toBe(hashModule(s.modules.get('a.gc')!));
    expect(packed.manifestText).toContain(`hash = "${packed.pins.get('a.gc')}"`);
    expect(printTerm(packed.packageRecord)).toContain(':kind "genesis/package-v0.2"');
  });
});

describe('rename-symbol', () => {
  it('rewrites every occurrence, data included, and reports the count', () => {
    const r = run(
      state(`(def ::meta '{:exports [p::f]})\n(def p::f (fn (x) (p::f x)))\n{p::f p::f}\n`),
      `{:op :rename-symbol :module-path "a.gc" :from p::f :to "p::g"}`,
    );
    expect(text(r.state, 'a.gc')).not.toContain('p::f');
    expect(printTerm(mapGet(r.semanticEdits[0]!, kw('detail'))!)).toContain(':rewrite-count 5');
    expect(mapGet(r.semanticEdits[0]!, kw('before-module-h'))).toBeDefined();
  });
  it('zero sites is an error', () => {
    expect(codeOf(() => run(state('x\n'), `{:op :rename-symbol :module-path "a.gc" :from y :to z}`))).toBe('patch/rename-no-sites');
  });
  it('works on very deep terms (iterative)', () => {
    const src = `'(${'x '.repeat(50000)})`;
    const r = run(state(`${src}\n`), `{:op :rename-symbol :module-path "a.gc" :from x :to y}`);
    expect(printTerm(mapGet(r.semanticEdits[0]!, kw('detail'))!)).toContain(':rewrite-count 50000');
  });
});

describe('rewrite-imports / rewrite-exports', () => {
  const a = `(def ::meta '{:imports [m::b m::a] :exports [p::x]})\n(def p::x 1)\n`;
  it('replace seeds, remove then add apply set-wise; the vector is sorted', () => {
    const r = run(state(a), `{:op :rewrite-imports :module-path "a.gc" :remove [m::a] :add [m::c m::b]}`);
    expect(text(r.state, 'a.gc')).toContain(':imports [m::b m::c]');
    const r2 = run(state(a), `{:op :rewrite-exports :module-path "a.gc" :replace [p::z p::y] :remove [p::z]}`);
    expect(text(r2.state, 'a.gc')).toContain(':exports [p::y]');
  });
  it('creates the list when absent; fails without ::meta or without a change', () => {
    const r = run(state(`(def ::meta '{:caps []})\n`), `{:op :rewrite-exports :module-path "a.gc" :add [p::x]}`);
    expect(text(r.state, 'a.gc')).toContain(':exports [p::x]');
    expect(codeOf(() => run(state('(def p::x 1)\n'), `{:op :rewrite-exports :module-path "a.gc" :add [p::x]}`))).toBe('patch/meta-missing');
    expect(codeOf(() => run(state(a), `{:op :rewrite-exports :module-path "a.gc" :add [p::x]}`))).toBe('patch/no-change');
  });
});

describe('migrate-contract-signature (lexical shadowing)', () => {
  const op = (from = 'req', to = 'request') =>
    `{:op :migrate-contract-signature :module-path "a.gc" :contract-symbol p::h :from-param ${from} :to-param ${to}}`;
  it('renames the first parameter and in-scope references only', () => {
    const src = `(def p::h (fn (req extra)
      (begin
        (f req extra)
        (fn (req) req)
        (let ((req 1)) req)
        (let ((y req)) (g y req))
        'req
        [req]
        {:req req}
        (prim int/add req 1))))\n`;
    const r = run(state(src), op());
    const out = text(r.state, 'a.gc');
    expect(out).toContain('(fn (request)');
    expect(out).toContain('((f request) extra)');
    expect(out).toContain('(fn (req) req)');
    expect(out).toContain('(let ((req 1)) req)');
    expect(out).toContain('(let ((y request)) ((g y) request))');
    expect(out).toContain('(quote req)');
    expect(out).toContain('[req]');
    expect(out).toContain('{:req request}');
    expect(out).toContain('(prim int/add request 1)');
    expect(printTerm(mapGet(r.semanticEdits[0]!, kw('detail'))!)).toContain(':rewrite-count 5');
  });
  it('let binding expressions see the outer parameter even when the let shadows it', () => {
    const r = run(state('(def p::h (fn (req) (let ((req (f req))) req)))\n'), op());
    expect(text(r.state, 'a.gc')).toContain('(let ((req (f request))) req)');
  });
  it('rejects a wrong shape, a wrong first parameter, equal names and capture', () => {
    expect(codeOf(() => run(state('(def p::h 1)\n'), op()))).toBe('patch/contract-shape');
    expect(codeOf(() => run(state('(def p::x (fn (req) req))\n'), op()))).toBe('patch/contract-shape');
    expect(codeOf(() => run(state('(def p::h (fn (other) req))\n'), op()))).toBe('patch/contract-shape');
    expect(codeOf(() => run(state('(def p::h (fn (req) req))\n'), op('req', 'req')))).toBe('patch/contract-shape');
    expect(codeOf(() => run(state('(def p::h (fn (req) (f request req)))\n'), op()))).toBe('patch/param-capture');
    expect(codeOf(() => run(state('(def p::h (fn (req) (fn (request) req)))\n'), op()))).toBe('patch/param-capture');
  });
});

describe('applyOpsInMemory', () => {
  it('does not modify its input state and reports the failing ordinal', () => {
    const s = state('(def p::a 1)\n');
    const before = text(s, 'a.gc');
    const r = run(s, `{:op :rename-symbol :module-path "a.gc" :from p::a :to p::b}`);
    expect(text(s, 'a.gc')).toBe(before);
    expect(text(r.state, 'a.gc')).toContain('p::b');
    let details: Record<string, unknown> | undefined;
    try {
      run(s, `{:op :remove-module :module-path "b.gc"} {:op :remove-module :module-path "b.gc"}`);
    } catch (e) {
      details = (e as { details?: Record<string, unknown> }).details;
    }
    expect(details).toMatchObject({ ordinal: 1, op: 'remove-module' });
  });
  it('vec helper sanity', () => expect(printTerm(vec([int(1)]))).toBe('[1]'));
});
