/**
 * Format-preserving apply (docs/patches.md "How apply writes modules"), property test: for generated hand-formatted modules (comments,
 * blank lines, quote sugar, n-ary calls, multi-parameter fn, let) and every module-editing op, the
 * rendered text has exactly the canonical forms of the canonical apply (same hash-module), and every
 * top-level form the op did not change keeps its bytes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalizeSource } from '../../../src/coreform/canon.js';
import { hashModule, semanticNodeId } from '../../../src/coreform/hash.js';
import { readModuleSpans, readTerm } from '../../../src/coreform/read.js';
import { int, list, listFrom, sym, str, termsEqual, vec, kwMap, kw, type Term } from '../../../src/coreform/term.js';
import { canonicalizeForm } from '../../../src/coreform/canon.js';
import { printTerm } from '../../../src/coreform/print.js';
import { applyOpsInMemory } from '../../../src/patch/ops/apply-ops.js';
import { normalizePatch } from '../../../src/patch/protocol/normalize.js';
import { packageStateFromSources } from '../../../src/patch/protocol/state.js';
import { ModuleRenderer } from '../../../src/patch/render/render.js';
import { messyPrint, rng } from '../../coreform/messy.js';

const MANIFEST = `schema = 1\nname = "p"\nversion = "1.0.0"\nobligations = []\n\n[[modules]]\npath = "a.gc"\n\n[[modules]]\npath = "b.gc"\n`;
const NAMES = ['p::f0', 'p::f1', 'p::f2', 'p::f3'];
const VARS = ['x', 'y', 'z'];

/** A code expression over the names and `vars` (depth-bounded), as a raw (hand-written) term. */
function expr(vars: readonly string[]): fc.Arbitrary<Term> {
  const leaf = fc.oneof(
    fc.constantFrom(...NAMES, ...vars, 'm::a').map(sym),
    fc.integer({ min: -5, max: 300 }).map(int),
    fc.constantFrom('s', 'two words', 'é').map(str),
    fc.constantFrom('a', 'b').map((n) => list(sym('quote'), list(sym(n), sym('p::f1')))),
    fc.constant(vec([int(1), sym('p::f2')])),
  );
  return fc.letrec<{ e: Term }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      leaf,
      fc.tuple(fc.constantFrom(...NAMES, ...vars).map(sym), fc.array(tie('e'), { minLength: 1, maxLength: 3 })).map(([h, args]) => listFrom([h, ...args])),
      fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => list(sym('if'), c, a, b)),
      fc.tuple(tie('e'), tie('e')).map(([v, b]) => list(sym('let'), list(list(sym('z'), v)), b)),
    ),
  })).e;
}

/** A def form: `(def p::fK (fn (x …) body…))` or `(def p::fK expr)`. */
const defForm = (name: string): fc.Arbitrary<Term> =>
  fc.oneof(
    fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.array(expr(VARS), { minLength: 1, maxLength: 2 }))
      .map(([k, body]) => list(sym('def'), sym(name), listFrom([sym('fn'), listFrom(VARS.slice(0, k).map(sym)), ...body]))),
    expr([]).map((e) => list(sym('def'), sym(name), e)),
  );

const META = list(sym('def'), sym('::meta'), list(sym('quote'), kwMap({ imports: vec([sym('m::a'), sym('m::c')]), exports: vec([sym('p::f0')]) })));

/** A module: optional ::meta, then defs of a subset of the names, hand-formatted. */
const moduleArb = fc
  .tuple(fc.boolean(), fc.subarray(NAMES, { minLength: 1 }), fc.integer(), fc.integer({ min: 0, max: 3 }))
  .chain(([meta, names, seed, extra]) =>
    fc.tuple(fc.tuple(...names.map(defForm)), fc.array(expr([]), { maxLength: extra })).map(([defs, tops]) => {
      const forms = [...(meta ? [META] : []), ...defs, ...tops];
      const r = rng(seed);
      let text = r() < 0.5 ? ';; module a\n\n' : '';
      forms.forEach((f, i) => {
        if (i > 0) text += r() < 0.4 ? '\n\n' : r() < 0.5 ? '\n;; about the next form\n' : '\n';
        text += messyPrint(f, r);
        if (r() < 0.3) text += ' ; trailing note';
      });
      return { text: text + '\n', names };
    }),
  );

/** The ops to try on a module whose defs are `names` (op text for the patch vector). */
function opsFor(names: readonly string[], formCount: number, metaFirst: boolean): fc.Arbitrary<string> {
  const name = fc.constantFrom(...names);
  const path = `[[:form ${metaFirst ? 1 : 0}] [:pair-cdr] [:pair-cdr] [:pair-car]]`;
  return fc.oneof(
    name.map((n) => `{:op :rename-symbol :module-path "a.gc" :from ${n} :to "p::renamed"}`),
    fc.constantFrom('x', 'y').map((v) => `{:op :rename-symbol :module-path "a.gc" :from ${v} :to "w"}`),
    fc.constant(`{:op :replace-node :module-path "a.gc" :path ${path} :new (g (h 1 2) 'q [3])}`),
    fc.constant(`{:op :replace-node-id :module-path "a.gc" :node-id "${semanticNodeId('a.gc', readTerm(path))}" :new 42}`),
    fc.constant(`{:op :split-module :from-module-path "a.gc" :to-module-path "n.gc" :symbols [${names[names.length - 1]}]}`),
    fc.constant(`{:op :move-module :from-module-path "a.gc" :to-module-path "sub/a.gc"}`),
    fc.constant(`{:op :add-module :module-path "c.gc" :content "(def p::new 1) ; c\\n"}`),
    ...(metaFirst
      ? [
          fc.constant(`{:op :rewrite-imports :module-path "a.gc" :remove [m::a] :add [m::b]}`),
          fc.constant(`{:op :rewrite-exports :module-path "a.gc" :add [p::f9]}`),
        ]
      : []),
    ...(formCount > 0 ? [fc.constant(`{:op :migrate-contract-signature :module-path "a.gc" :contract-symbol ${names[0]} :from-param x :to-param w}`)] : []),
  );
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Texts of the top-level forms of `bytes` with their canonical forms. */
function formTexts(bytes: Uint8Array): { text: string; canon: Term }[] {
  const m = readModuleSpans(bytes);
  return m.forms.map((f, i) => ({ text: dec.decode(bytes.subarray(f.start, f.end)), canon: canonicalizeForm(f.term, i) }));
}

describe('format-preserving rendering: property', () => {
  it('every op, alone and in sequences of up to 3: hash-module equals the canonical result; untouched forms keep their bytes', () => {
    let preserved = 0;
    let applied = 0;
    fc.assert(
      fc.property(
        moduleArb.chain((m) =>
          fc.tuple(
            fc.constant(m),
            fc.array(opsFor(m.names, m.names.length, m.text.includes('::meta')), { minLength: 1, maxLength: 3 }).map((ops) => ops.join(' ')),
          ),
        ),
        ([{ text }, op]) => {
          const b = '(def p::b (p::f0 1)) ; uses f0\n';
          const before = packageStateFromSources(MANIFEST, { 'a.gc': text, 'b.gc': b });
          let after;
          try {
            after = applyOpsInMemory(before, normalizePatch(readTerm(`{:version 1 :intent "" :provenance {} :ops [${op}]}`))).state;
          } catch {
            return; // the op does not apply to this module (e.g. no such parameter): nothing to render
          }
          applied++;
          const originals = new Map<string, Uint8Array | undefined>([
            ['a.gc', enc.encode(text)],
            ['b.gc', enc.encode(b)],
            ['n.gc', undefined],
            ['sub/a.gc', undefined],
            ['c.gc', undefined],
          ]);
          const renderer = new ModuleRenderer(originals);
          const oldForms = [...formTexts(enc.encode(text)), ...formTexts(enc.encode(b))];
          for (const [path, forms] of after.modules) {
            const r = renderer.render(path, forms);
            expect(r.fallback, `${path}: ${r.fallback}\n--- before\n${text}\n--- op ${op}`).toBeUndefined();
            expect(hashModule(canonicalizeSource(r.bytes))).toBe(hashModule(forms));
            if (r.mode === 'preserved') preserved++;
            // Every output form equal to an old form keeps one of that old form's texts.
            const outputForms = path === 'c.gc' ? [] : formTexts(r.bytes);
            const withOld = outputForms.map((f) => ({ f, same: oldForms.filter((o) => termsEqual(o.canon, f.canon)) })).filter(({ same }) => same.length > 0);
            for (const { f, same } of withOld) {
              expect(
                same.map((o) => o.text),
                `${path}\n${dec.decode(r.bytes)}\n--- op ${op}`,
              ).toContain(f.text);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(applied).toBeGreaterThan(120);
    expect(preserved).toBeGreaterThan(50);
  });
});

// Silence unused import lint in some configurations.
void printTerm;
void kw;
