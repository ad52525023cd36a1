/** fast-check generators of small workspaces and of single-field mutations of report terms. */
import fc from 'fast-check';
import { canonicalizeSource } from '../../src/coreform/canon.js';
import { int, kw, map, NIL, str, sym, vec, type Term } from '../../src/coreform/term.js';
import { makeWorkspace, type Workspace } from '../../src/workspace/workspace.js';

/** Module paths, including ones whose UTF-8 order differs from UTF-16 order (U+E000 vs astral). */
export const PATHS = ['a.gc', 'b.gc', 'b/c.gc', 'z.gc', 'é.gc', '\uE000.gc', '\u{1F600}.gc'];
const FORMS: Term[] = ['(def x 1)', '(def x 2)', '(def y 1)', '[1 2 3]', '"s"', '(f a b)', '{:k 1}', "'(q)"].map((s) => canonicalizeSource(s)[0]!);

const formsArb = fc.array(fc.nat(FORMS.length - 1), { maxLength: 3 }).map((ix) => ix.map((i) => FORMS[i]!));

/** A workspace over a subset of {@link PATHS} with up to three forms per module. */
export const workspaceArb: fc.Arbitrary<Workspace> = fc
  .subarray(PATHS)
  .chain((paths) => fc.tuple(...paths.map(() => formsArb)).map((fs) => makeWorkspace(paths.map((p, i) => ({ modulePath: p, forms: fs[i]! })))));

type Edit = { kind: number; form: number; index: number; forms: Term[] };
const editArb: fc.Arbitrary<Edit> = fc.record({ kind: fc.nat(5), form: fc.nat(FORMS.length - 1), index: fc.nat(3), forms: formsArb });

/** Applies per-path edits (keep, delete, rewrite, edit one form, append a form, add) to `base`. */
function edit(base: Workspace, edits: readonly Edit[]): Workspace {
  const out: { modulePath: string; forms: Term[] }[] = [];
  PATHS.forEach((path, i) => {
    const e = edits[i]!;
    const cur = base.byPath.get(path)?.items;
    if (cur === undefined) {
      if (e.kind >= 4) out.push({ modulePath: path, forms: e.forms });
      return;
    }
    switch (e.kind) {
      case 0:
      case 1:
        out.push({ modulePath: path, forms: [...cur] });
        break;
      case 2:
        break;
      case 3:
        out.push({ modulePath: path, forms: e.forms });
        break;
      case 4: {
        const next = [...cur];
        if (next.length > 0) next[e.index % next.length] = FORMS[e.form]!;
        out.push({ modulePath: path, forms: next });
        break;
      }
      default:
        out.push({ modulePath: path, forms: [...cur, FORMS[e.form]!] });
    }
  });
  return makeWorkspace(out);
}

/** A workspace derived from `base` by random per-path edits (so merges exercise every rule). */
export function derivedArb(base: Workspace): fc.Arbitrary<Workspace> {
  return fc.array(editArb, { minLength: PATHS.length, maxLength: PATHS.length }).map((edits) => edit(base, edits));
}

/** A merge triple whose sides are random edits of a random base. */
export const tripleArb = workspaceArb.chain((base) => fc.tuple(fc.constant(base), derivedArb(base), derivedArb(base)));

/**
 * Returns a term different from `t`, changed at one place chosen by `choices`: descends into maps
 * (values) and vectors by `choices[i] mod size`, then changes the atom or container found there.
 */
export function mutateAt(t: Term, choices: readonly number[], depth = 0): Term {
  const c = choices[depth];
  if (c !== undefined && t.kind === 'map' && t.entries.length > 0) {
    const i = c % t.entries.length;
    return map(t.entries.map(([k, v], j) => [k, j === i ? mutateAt(v, choices, depth + 1) : v] as const));
  }
  if (c !== undefined && t.kind === 'vec' && t.items.length > 0) {
    const i = c % (t.items.length + 1);
    if (i === t.items.length) return vec(t.items.slice(0, -1));
    return vec(t.items.map((e, j) => (j === i ? mutateAt(e, choices, depth + 1) : e)));
  }
  switch (t.kind) {
    case 'nil':
      return int(0);
    case 'bool':
      return { kind: 'bool', value: !t.value };
    case 'int':
      return int(t.value + 1n);
    case 'str':
      return /^[0-9a-f]{64}$/.test(t.value) ? str(t.value.slice(0, 63) + (t.value.endsWith('0') ? '1' : '0')) : str(t.value + 'x');
    case 'sym':
      return sym(t.name + 'x');
    case 'vec':
      return vec([...t.items, NIL]);
    case 'map':
      return map([...t.entries, [kw('mutated'), int(1)] as const]);
    default:
      return NIL;
  }
}
