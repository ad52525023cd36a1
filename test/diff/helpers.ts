/** Test helpers: workspaces from `.gc` source text. */
import { canonicalizeSource } from '../../src/coreform/canon.js';
import type { MapTerm, SymTerm, Term } from '../../src/coreform/term.js';
import { makeWorkspace, type Workspace } from '../../src/workspace/workspace.js';

/** A workspace from `{path: source}`; sources are canonicalized first. */
export function ws(modules: Record<string, string>): Workspace {
  return makeWorkspace(Object.entries(modules).map(([modulePath, src]) => ({ modulePath, forms: canonicalizeSource(src) })));
}

/** The items of a vector term (throws for anything else). */
export function items(t: Term | undefined): readonly Term[] {
  if (t?.kind !== 'vec') throw new Error(`expected a vector, got ${t?.kind}`);
  return t.items;
}

/** A map term's fields keyed by keyword name without the colon. */
export function fields(m: MapTerm): Record<string, Term> {
  return Object.fromEntries(m.entries.map(([k, v]) => [(k as SymTerm).name.slice(1), v]));
}
