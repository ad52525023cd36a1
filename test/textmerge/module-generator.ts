/**
 * Generated CoreForm modules for the textmerge property tests (reduced merge = whole merge, the
 * safety net): a module is a list of elements (definitions, references, quoted data, comment
 * blocks, doc and trailing comments) rendered with random separators; `mutate` makes 1–3 edits
 * of the kinds a merge meets (insert, change a digit, delete, move, add a comment, rename a
 * reference, re-indent).
 */

/** The names definitions and references are drawn from. */
export const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
/** Separators between elements, weighted by repetition. */
export const SEPARATORS = ['\n\n', '\n\n', '\n', '\n\n\n', ' ', '', '\n  \n'];

/** A generator of modules drawing from `rnd` (e.g. `random(seed)` of test/helpers/random.ts). */
export function moduleGenerator(rnd: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const form = (name: string): string =>
    pick([
      () => `(def m::${name}\n  (fn (x)\n    (prim int/add x ${Math.floor(rnd() * 9)})))`,
      () => `(def m::${name} ${Math.floor(rnd() * 9)})`,
      () => `(def m::${name} (m::${pick(NAMES)} 1))`,
      () => `(def m::${name}\n  (fn (y) (m::${pick(NAMES)} y)))`,
      () => `m::${name}`,
      () => `(m::${name} ${Math.floor(rnd() * 3)})`,
      () => `'(q ${name})`,
    ])();
  const element = (names: readonly string[]): string => {
    const r = rnd();
    // Free comment blocks repeat in small modules (keys with several occurrences), rarely in large ones.
    if (r < 0.1) return `; free ${Math.floor(rnd() * names.length * 0.7)}`;
    if (r < 0.13) return `; one\n; two`;
    let f = form(pick(names));
    if (rnd() < 0.4) f = `;; doc ${Math.floor(rnd() * 100)}\n${f}`;
    if (rnd() < 0.15) f = `${f} ; note`;
    return f;
  };
  /** `size` elements; large modules use many distinct names so that edits rarely share a key. */
  const module = (size: number, names: readonly string[]): string[] => Array.from({ length: size }, () => element(names));
  /** 1–3 edits of the elements `[from, to)` (insert, change a digit, delete, move, add a comment, rename a reference). */
  const mutate = (els: string[], names: readonly string[], from = 0, to = els.length): string[] => {
    const x = [...els];
    let hi = to;
    for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
      const i = from + Math.floor(rnd() * Math.max(1, hi - from));
      const r = rnd();
      if (x.length === 0 || i >= x.length || r < 0.2) {
        x.splice(Math.min(i, x.length), 0, element(names));
        hi++;
      } else if (r < 0.45) x[i] = x[i]!.replace(/\d/, String(Math.floor(rnd() * 9)));
      else if (r < 0.55) {
        x.splice(i, 1);
        hi--;
      } else if (r < 0.65) {
        const [e] = x.splice(i, 1);
        x.splice(from + Math.floor(rnd() * Math.max(1, hi - 1 - from)), 0, e!);
      } else if (r < 0.75) x[i] = `; added\n${x[i]!}`;
      else if (r < 0.85) x[i] = x[i]!.replace(/m::(\w+) 1\)/, `m::${pick(names)} 1)`);
      else x[i] = x[i]!.replace(/\n {2}/g, '\n    ');
    }
    return x;
  };
  const render = (els: string[], seps: string[]): string =>
    els.map((e, i) => (i === 0 ? '' : (seps[i] ?? pick(SEPARATORS))) + e).join('') + pick(['\n', '\n', '', '\n\n']);
  return { pick, module, mutate, render };
}
