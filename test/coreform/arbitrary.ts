// fast-check generators of CoreForm terms for property tests.
import fc from 'fast-check';
import { bytes, int, listFrom, map, str, sym, vec, NIL, TRUE, FALSE, type Term } from '../../src/coreform/term.js';

const symbolName = fc.oneof(
  fc.constantFrom('f', 'g', 'x', 'y', 'pkg/mod::name', ':kw', ':a', ':b', 'a.b', '+', '-x', 'café', 'λ'),
  fc.stringMatching(/^[a-z][a-z0-9/:_-]{0,12}$/),
);

/** Atoms that read back as themselves (no reserved words as symbol names). */
export const atom: fc.Arbitrary<Term> = fc.oneof(
  fc.constant(NIL),
  fc.constant(TRUE),
  fc.constant(FALSE),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((n) => int(n)),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => str(s)),
  fc.uint8Array({ maxLength: 12 }).map((b) => bytes(b)),
  symbolName.filter((n) => !['nil', 'true', 'false'].includes(n)).map((n) => sym(n)),
);

/** Data terms (vectors, maps, proper lists of data) of bounded size. */
export const dataTerm: fc.Arbitrary<Term> = fc.letrec<{ t: Term }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.array(tie('t'), { maxLength: 6 }).map((items) => vec(items)),
    fc.array(fc.tuple(atom, tie('t')), { maxLength: 4 }).map((entries) => map(entries)),
    fc.array(tie('t'), { minLength: 1, maxLength: 6 }).map((items) => listFrom(items)),
  ),
})).t;

/**
 * Terms that are already canonical as top-level forms: atoms, vectors (data), quoted data and
 * binary applications of symbols.
 */
export const canonicalTerm: fc.Arbitrary<Term> = fc.oneof(
  atom.filter((t) => t.kind !== 'nil'),
  fc.array(dataTerm, { maxLength: 6 }).map((items) => vec(items)),
  dataTerm.map((d) => listFrom([sym('quote'), d])),
  fc
    .tuple(
      symbolName.filter((n) => !['nil', 'true', 'false', 'quote', 'def', 'fn', 'if', 'begin', 'let', 'prim', 'seal', 'unseal'].includes(n)),
      atom,
    )
    .map(([f, a]) => listFrom([sym(f), a])),
);
