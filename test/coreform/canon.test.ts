import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CANON_INVALID_FORM, canonicalizeForm, canonicalizeModule, canonicalizeSource, isCanonicalForm } from '../../src/coreform/canon.js';
import { readTerm, parseModule } from '../../src/coreform/read.js';
import { NIL, TRUE, FALSE, bytes, int, listFrom, map, pair, str, sym, termsEqual, vec, type Term } from '../../src/coreform/term.js';
import { GcError } from '../../src/util/errors.js';
import { errorOf } from '../patch/helpers.js';

/** Canonicalizes the single form in `src` and compares with the raw reading of `expected`. */
function expectCanon(src: string, expected: string): void {
  const got = canonicalizeForm(readTerm(src), 0);
  const want = readTerm(expected);
  expect(termsEqual(got, want), `${src} ⇒ ${expected}`).toBe(true);
  // Idempotent and recognized as canonical.
  expect(termsEqual(canonicalizeForm(got, 0), got)).toBe(true);
  expect(isCanonicalForm(got)).toBe(true);
}

function canonErr(src: string, ordinal = 0): GcError {
  try {
    canonicalizeForm(readTerm(src), ordinal);
  } catch (e) {
    expect(e).toBeInstanceOf(GcError);
    const g = e as GcError;
    expect(g.code).toBe(CANON_INVALID_FORM);
    expect(g.exitCode).toBe(10);
    return g;
  }
  throw new Error(`expected canonicalize error for ${src}`);
}

function expectCanonErr(src: string, reason: string, ordinal = 0): void {
  const e = canonErr(src, ordinal);
  expect(e.message).toBe(`canonicalize form ${ordinal}: ${reason}`);
  expect(isCanonicalForm(readTerm(src))).toBe(false);
}

describe('canonicalize: application and fn sugar (docs/reference/coreform.md §1.3)', () => {
  it('curries fn and left-nests application', () => {
    expectCanon('(fn (x y) (f x y))', '(fn (x) (fn (y) ((f x) y)))');
    expectCanon('(main 1 2)', '((main 1) 2)');
    expectCanon('(f a b c)', '(((f a) b) c)');
    expectCanon('(f a)', '(f a)');
    expectCanon('((f a b) (g c d))', '(((f a) b) ((g c) d))');
  });
  it('single-item applications collapse; () is nil', () => {
    expectCanon('(f)', 'f');
    expectCanon('(  y  )', 'y');
    expectCanon('((((x))))', 'x');
    expectCanon('()', 'nil');
    expectCanon('(f ())', '(f nil)');
    expectCanon('((f) (g))', '(f g)');
  });
  it('atoms are unchanged', () => {
    for (const t of [NIL, TRUE, FALSE, int(-5), str('s'), bytes(new Uint8Array([1])), sym('x')]) {
      expect(canonicalizeForm(t, 0)).toBe(t);
    }
  });
  it('app_sugar module', () => {
    const forms = canonicalizeSource('(def main (fn (x) (fn (y) (f x y))))\n(main 1 2)\n');
    const want = parseModule('(def main (fn (x) (fn (y) ((f x) y))))\n((main 1) 2)');
    expect(forms.length).toBe(2);
    forms.forEach((f, i) => expect(termsEqual(f, want[i]!)).toBe(true));
  });
  it('multi-body fn becomes begin', () => {
    expectCanon('(fn (x) (a x) (b x y))', '(fn (x) (begin (a x) ((b x) y)))');
    expectCanon('(fn (x y) a b c)', '(fn (x) (fn (y) (begin a b c)))');
    expectCanon('(fn (x) x)', '(fn (x) x)');
  });
});

describe('canonicalize: reserved forms', () => {
  it('quote datum is data (untouched)', () => {
    expectCanon("'(f a b)", '(quote (f a b))');
    expectCanon("(g '(f a b) (h x y))", "((g '(f a b)) ((h x) y))");
    expectCanon("'{:a (f x y)}", "'{:a (f x y)}");
    expectCanon("'(fn (x x) 1)", "'(fn (x x) 1)");
    expectCanon("'()", "'nil");
    const t = readTerm("'(f a b)");
    expect(canonicalizeForm(t, 0)).toBe(t);
  });
  it('def', () => {
    expectCanon('(def main (f a b))', '(def main ((f a) b))');
    expectCanon("(def ::meta '{:exports [main]})", "(def ::meta '{:exports [main]})");
  });
  it('if / begin / prim / seal / unseal', () => {
    expectCanon('(if (p x y) (f) (g a b))', '(if ((p x) y) f ((g a) b))');
    expectCanon('(begin (f a b))', '(begin ((f a) b))');
    expectCanon('(begin a (b) (c d e))', '(begin a b ((c d) e))');
    expectCanon('(prim core/int::add (f x) (g a b) 3)', '(prim core/int::add (f x) ((g a) b) 3)');
    expectCanon('(prim core/int::zero)', '(prim core/int::zero)');
    expectCanon('(seal)', '(seal)');
    expectCanon('(seal (v) (t a b))', '(seal v ((t a) b))');
    expectCanon('(unseal (w) tok)', '(unseal w tok)');
  });
  it('let: always (let (bindings) body), multi-body → begin', () => {
    expectCanon('(let ((x (f a b)) (y 2)) (g x) (h x y))', '(let ((x ((f a) b)) (y 2)) (begin (g x) ((h x) y)))');
    expectCanon('(let ((x 1)) x)', '(let ((x 1)) x)');
    expectCanon('(let () (f a b))', '(let () ((f a) b))');
  });
  it('vectors are data; top-level map: keys data, values code', () => {
    expectCanon('[(f a b) (g)]', '[(f a b) (g)]');
    expectCanon('(f [(g a b)])', '(f [(g a b)])');
    expectCanon('{(k a b) (f a b) :x (g)}', '{(k a b) ((f a) b) :x g}');
    expectCanon('{:a {(k a b) (v a b)}}', '{:a {(k a b) ((v a) b)}}');
    expectCanon("{:a '{:b (v a b)}}", "{:a '{:b (v a b)}}");
    expectCanon('[{:a (f x y)}]', '[{:a (f x y)}]');
    expectCanon('{}', '{}');
  });
  it('reserved symbols outside head position are ordinary symbols', () => {
    expectCanon('(f fn let quote)', '(((f fn) let) quote)');
    expectCanon('fn', 'fn');
  });
});

describe('canonicalize: errors', () => {
  it('fn errors', () => {
    expectCanonErr('(fn (item item) item)', '(fn ...) duplicate parameter: item');
    expectCanonErr('(fn (x 1) x)', '(fn ...) parameters must be symbols');
    expectCanonErr('(fn ("x") x)', '(fn ...) parameters must be symbols');
    expectCanonErr('(fn x x)', '(fn ...) parameters must be a list');
    expectCanonErr('(fn () x)', '(fn ...) expects at least one parameter');
    expectCanonErr('(fn (x))', '(fn ...) expects a parameter list and at least one body expression');
    expectCanonErr('(fn)', '(fn ...) expects a parameter list and at least one body expression');
  });
  it('let errors', () => {
    expectCanonErr('(let ((item 1) (item 2)) item)', '(let ...) duplicate binding: item');
    expectCanonErr('(let ((1 2)) x)', '(let ...) binding name must be symbol');
    expectCanonErr('(let ((x)) x)', '(let ...) binding must be a list of a name and an expression');
    expectCanonErr('(let ((x 1 2)) x)', '(let ...) binding must be a list of a name and an expression');
    expectCanonErr('(let (x) x)', '(let ...) binding must be a list of a name and an expression');
    expectCanonErr('(let x x)', '(let ...) bindings must be a list');
    expectCanonErr('(let ((x 1)))', '(let ...) expects a binding list and at least one body expression');
  });
  it('other reserved forms', () => {
    expectCanonErr('(quote)', '(quote ...) expects exactly 1 argument');
    expectCanonErr('(quote a b)', '(quote ...) expects exactly 1 argument');
    expectCanonErr('(def x)', '(def ...) expects exactly 2 arguments');
    expectCanonErr('(def x 1 2)', '(def ...) expects exactly 2 arguments');
    expectCanonErr('(def "x" 1)', '(def ...) name must be a symbol');
    expectCanonErr('(if a b)', '(if ...) expects exactly 3 arguments');
    expectCanonErr('(if a b c d)', '(if ...) expects exactly 3 arguments');
    expectCanonErr('(begin)', '(begin ...) expects at least 1 argument');
    expectCanonErr('(prim)', '(prim ...) expects an operator symbol');
    expectCanonErr('(prim "op" 1)', '(prim ...) operator must be a symbol');
    expectCanonErr('(seal v)', '(seal ...) expects 0 or 2 arguments');
    expectCanonErr('(seal a b c)', '(seal ...) expects 0 or 2 arguments');
    expectCanonErr('(unseal w)', '(unseal ...) expects exactly 2 arguments');
  });
  it('errors nested in code positions, and the ordinal', () => {
    expectCanonErr('(f (g (fn (a a) a)))', '(fn ...) duplicate parameter: a', 3);
    expectCanonErr('{:k (if)}', '(if ...) expects exactly 3 arguments');
    expectCanonErr('(def f (fn (x) (begin)))', '(begin ...) expects at least 1 argument', 7);
  });
  it('improper list in code position', () => {
    const t = pair(sym('f'), sym('x'));
    expect(() => canonicalizeForm(t, 2)).toThrow('canonicalize form 2: improper list in code position');
    expect(isCanonicalForm(t)).toBe(false);
    // ...but kept as-is under quote and in vectors.
    const q = listFrom([sym('quote'), t]);
    expect(canonicalizeForm(q, 0)).toBe(q);
    expect(isCanonicalForm(vec([t]))).toBe(true);
  });
  it('canonicalizeSource / canonicalizeModule use 0-based ordinals; source errors carry the form location', () => {
    const g = errorOf(() => canonicalizeSource('(def a 1)\n; c\n  (def b (fn (item item) item))\n'));
    expect(g.code).toBe(CANON_INVALID_FORM);
    expect(g.message).toBe('canonicalize form 1: (fn ...) duplicate parameter: item');
    expect(g.location).toMatchObject({ offset: 16, line: 3, column: 3 });
    expect(g.details).toEqual({ ordinal: 1, reason: '(fn ...) duplicate parameter: item' });
    expect(() => canonicalizeModule([sym('a'), readTerm('(if)')])).toThrow('canonicalize form 1: ');
    // Reader errors pass through unchanged.
    expect(() => canonicalizeSource('(def x "unterminated)\n')).toThrow(
      expect.objectContaining({ code: 'core/parse/unexpected', location: expect.objectContaining({ offset: 7 }) }),
    );
  });
});

describe('canonicalize: deep nesting', () => {
  // 25,000 levels: over twice the ~11,400 frames the simplest recursive function reaches on Node 20's
  // default stack, so any walk that recursed per level would overflow. 100,000 levels: bench/scale.js.
  const depth = 25_000;
  it('25,000-deep single-item applications collapse', () => {
    const t = readTerm('('.repeat(depth) + 'x' + ')'.repeat(depth));
    expect(termsEqual(canonicalizeForm(t, 0), sym('x'))).toBe(true);
  });
  it('25,000-deep application chain in code position', () => {
    const t = readTerm('(f '.repeat(depth) + 'x' + ')'.repeat(depth));
    const c = canonicalizeForm(t, 0);
    expect(termsEqual(c, t)).toBe(true);
    expect(isCanonicalForm(c)).toBe(true);
    const t3 = readTerm('(f a '.repeat(depth) + 'x' + ')'.repeat(depth));
    const c3 = canonicalizeForm(t3, 0);
    expect(isCanonicalForm(c3)).toBe(true);
    expect(isCanonicalForm(t3)).toBe(false);
  });
  it('deep data under quote and deep fn/let nesting', () => {
    const q = readTerm("'" + '(a '.repeat(depth) + ')'.repeat(depth));
    expect(canonicalizeForm(q, 0)).toBe(q);
    // fn and let nest several terms per level: 12,000 levels are past the stack for a recursive walk.
    const fnDeep = readTerm('(fn (x y) '.repeat(12_000) + 'x' + ')'.repeat(12_000));
    expect(isCanonicalForm(canonicalizeForm(fnDeep, 0))).toBe(true);
    const letDeep = readTerm('(let ((x (g a b))) '.repeat(12_000) + 'x' + ')'.repeat(12_000));
    expect(isCanonicalForm(canonicalizeForm(letDeep, 0))).toBe(true);
    const mapDeep = readTerm('{:k '.repeat(depth) + '(f a b)' + '}'.repeat(depth));
    expect(isCanonicalForm(canonicalizeForm(mapDeep, 0))).toBe(true);
  });
});

describe('canonicalize: idempotence property', () => {
  const atom = fc.oneof(
    fc.constant<Term>(NIL),
    fc.constant<Term>(TRUE),
    fc.constant<Term>(FALSE),
    fc.bigInt({ min: -1000n, max: 1000n }).map((v) => int(v) as Term),
    fc.string({ maxLength: 4 }).map((v) => str(v) as Term),
    fc.uint8Array({ maxLength: 3 }).map((v) => bytes(v) as Term),
    fc.constantFrom('f', 'g', 'x', 'y', 'z', ':k').map((n) => sym(n) as Term),
  );
  const { term } = fc.letrec<{ term: Term; code: Term; listT: Term }>((tie) => ({
    term: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atom, tie('code'), tie('listT')),
    listT: fc.array(tie('term'), { maxLength: 4 }).map((xs) => listFrom(xs)),
    code: fc.oneof(
      { depthSize: 'small' },
      fc
        .tuple(fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }), fc.array(tie('term'), { minLength: 1, maxLength: 3 }))
        .map(([ps, body]) => listFrom([sym('fn'), listFrom(ps.map((p) => sym(p))), ...body])),
      fc
        .tuple(fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }), fc.array(tie('term'), { minLength: 3, maxLength: 6 }))
        .map(([ns, es]) => listFrom([sym('let'), listFrom(ns.map((n, i) => listFrom([sym(n), es[i]!]))), ...es.slice(ns.length)])),
      tie('term').map((d) => listFrom([sym('quote'), d])),
      fc.array(tie('term'), { minLength: 3, maxLength: 3 }).map((xs) => listFrom([sym('if'), ...xs])),
      fc.array(tie('term'), { minLength: 1, maxLength: 3 }).map((xs) => listFrom([sym('begin'), ...xs])),
      fc.array(tie('term'), { maxLength: 3 }).map((xs) => listFrom([sym('prim'), sym('core/op'), ...xs])),
      tie('term').map((e) => listFrom([sym('def'), sym('name'), e])),
      fc.array(tie('term'), { maxLength: 3 }).map((xs) => vec(xs)),
      fc.array(fc.tuple(atom, tie('term')), { maxLength: 3 }).map((es) => map(es)),
    ),
  }));
  /** `canonicalizeForm(t, 0)`, or undefined when it rejects `t` with CANON_INVALID_FORM; any other error throws. */
  const canonicalOrInvalid = (t: Term): Term | undefined => {
    try {
      return canonicalizeForm(t, 0);
    } catch (e) {
      if (e instanceof GcError && e.code === CANON_INVALID_FORM) return undefined;
      throw e;
    }
  };
  it('canon(canon(x)) == canon(x), and canon(x) is recognized as canonical', () => {
    let ok = 0;
    fc.assert(
      fc.property(term, (t) => {
        const c = canonicalOrInvalid(t);
        if (c === undefined) return;
        ok++;
        expect(termsEqual(canonicalizeForm(c, 0), c)).toBe(true);
        expect(isCanonicalForm(c)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(ok).toBeGreaterThan(200);
  });
});
