/**
 * Symbol sites: the exact source ranges of the symbol tokens that become a given symbol term in a
 * module's canonical forms. Found on the reader's node spans (`readModuleSpans`), the one piece of
 * code that knows where nodes are in the text (docs/reference/coreform.md §1.2), shared with the
 * format-preserving apply and the merge driver.
 *
 * A token counts when it is a symbol atom spelled exactly `name` (symbols have no escapes, so the
 * token text is the name); strings, bytes, comments and integers are not symbols, including the
 * reader's `12abc` = Int 12 then Symbol `abc` rule. A symbol inside a quoted datum (`'x`,
 * `(quote x)`) still becomes a symbol term, so it counts. Canonicalization (§1.3) never drops or
 * duplicates a non-reserved symbol, so for such a symbol the only tokens that do not survive into
 * the forms are the ones inside an earlier entry of a map literal whose key repeats later in the
 * same literal ("last value wins"). (The planner accepts any non-empty symbol, reserved heads
 * included; for those the count check below is what keeps an export exact.)
 * Those are still reported, with `survives: false`: a rename must edit them too, or a renamed key
 * would stop colliding with the later (renamed) key and the dropped entry would come back.
 * Callers check the surviving count against the canonical count anyway.
 */
import { readModuleSpans, type NodeSpan } from '../coreform/read.js';
import { printAtom } from '../coreform/print.js';
import { termsEqual } from '../coreform/term.js';

/** One symbol token: the half-open UTF-8 byte range [start, end) of its text in the source. */
export interface SymbolSite {
  start: number;
  end: number;
  /** False when the token sits in a map entry that a later equal key overwrites (no term results). */
  survives: boolean;
}

/**
 * Finds every symbol token spelled `name` in the module read from `source`, in source order, and
 * says whether it becomes a symbol term of the module.
 * @param source the module's UTF-8 bytes; it must read without error (`readModule`).
 * @param name the symbol name (non-empty, no delimiters).
 * @returns half-open UTF-8 byte ranges, ascending, each with `survives`.
 * @throws GcError `core/parse/*` when the source does not read.
 */
export function findSymbolSites(source: Uint8Array, name: string): SymbolSite[] {
  const out: SymbolSite[] = [];
  const stack: [NodeSpan, boolean][] = [];
  const forms = readModuleSpans(source).forms;
  for (let i = forms.length - 1; i >= 0; i--) stack.push([forms[i]!.node, true]);
  while (stack.length > 0) {
    const [n, survives] = stack.pop()!;
    if (n.kind === 'atom') {
      if (n.term.kind === 'sym' && n.term.name === name) out.push({ start: n.start, end: n.end, survives });
      continue;
    }
    const kids = n.children;
    if (n.kind === 'map') {
      const entries = kids.length >> 1;
      // The last entry of each atom key (a map of printed atoms); other keys are compared pairwise.
      const lastOf = new Map<string, number>();
      for (let e = 0; e < entries; e++) {
        const key = printAtom(kids[2 * e]!.term);
        if (key !== undefined) lastOf.set(`${kids[2 * e]!.term.kind} ${key}`, e);
      }
      for (let e = entries - 1; e >= 0; e--) {
        const key = kids[2 * e]!.term;
        const atom = printAtom(key);
        let overwritten = false;
        if (atom !== undefined) overwritten = lastOf.get(`${key.kind} ${atom}`)! > e;
        else for (let later = e + 1; later < entries && !overwritten; later++) overwritten = termsEqual(key, kids[2 * later]!.term);
        stack.push([kids[2 * e + 1]!, survives && !overwritten], [kids[2 * e]!, survives && !overwritten]);
      }
      continue;
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i]!, survives]);
  }
  return out;
}
