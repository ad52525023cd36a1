/**
 * Semantic checks after the per-form merge of one module:
 *
 * - **Renames carried over.** A side *renamed* a qualified name `old` → `new` when, on that side,
 *   `old` no longer occurs in any form, `new` occurs nowhere in base, and every base form that
 *   mentions `old` is, on that side, a form equal to it with `old` substituted by `new` (in the
 *   defining module this covers `(def old …)` becoming `(def new …)`; in a module that only
 *   references it, every occurrence). The other side's new references to `old` are then rewritten.
 * - **Dangling references.** A side removed `(def NAME …)` (not a rename) and the other side's
 *   changes add references to NAME: each form holding such a new reference becomes a conflict
 *   `form/dangling-reference`.
 *
 * Names are symbols of the read terms (comments and strings never count); only qualified names
 * (`pkg/mod::name`) are considered. Only changed forms are read, so unchanged modules cost nothing.
 */
import { pushParts, type Term } from '../../coreform/term.js';

/** Occurrences of each symbol name in a term (iterative, any depth). */
export function symbolCounts(t: Term, into: Map<string, number> = new Map()): Map<string, number> {
  const stack: Term[] = [t];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'sym') into.set(x.name, (into.get(x.name) ?? 0) + 1);
    else if (x.kind === 'map') {
      // entries pushed first to last, so counted last to first (not `pushParts`' reading order):
      // `qualifiedCounts` keys in this order, and when two new names fit a rename, the merge
      // carries the first of them
      for (const [k, v] of x.entries) stack.push(v, k);
    } else pushParts(x, stack);
  }
  return into;
}

/** Qualified names (`…::…`) among a term's symbols, with their counts. */
export function qualifiedCounts(t: Term | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!t) return out;
  for (const [k, n] of symbolCounts(t)) if (k.includes('::') && !k.startsWith('::')) out.set(k, n);
  return out;
}

/** True when the UTF-8 bytes of `needle` occur in `hay` (a cheap pre-filter before reading terms). */
export function containsText(hay: Uint8Array, needle: string): boolean {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.length).includes(needle, 0, 'utf8');
}

/**
 * True when a `fn` parameter or a `let` binding anywhere in `t` is named in `names`
 * (`(fn (p …) …)`, `(let ((n e) …) …)`: the reserved heads of src/coreform/canon.ts): such a binder
 * shadows a module-level name inside its body, so a rename of that name cannot be carried into `t`
 * by substitution alone. Quoted data counts too (the answer errs towards "binds"). Iterative, any
 * depth.
 */
export function bindsAny(t: Term, names: ReadonlySet<string>): boolean {
  const stack: Term[] = [t];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'vec') for (const i of x.items) stack.push(i);
    else if (x.kind === 'map') for (const [k, v] of x.entries) stack.push(k, v);
    if (x.kind !== 'pair') continue;
    stack.push(x.cdr, x.car);
    const head = x.car;
    const second = x.cdr.kind === 'pair' ? x.cdr.car : undefined;
    if (head.kind !== 'sym' || second === undefined || (head.name !== 'fn' && head.name !== 'let')) continue;
    for (let b: Term = second; b.kind === 'pair'; b = b.cdr) {
      const item = head.name === 'fn' ? b.car : b.car.kind === 'pair' ? b.car.car : undefined;
      if (item?.kind === 'sym' && names.has(item.name)) return true;
    }
  }
  return false;
}
