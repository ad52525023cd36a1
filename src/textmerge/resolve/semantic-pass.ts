/**
 * The semantic pass of the text merge (after resolution, before the order merge): renames one side
 * made are carried into the other side's edits of the forms that mention the old name, and
 * references one side's changes add to a definition the other side removed become
 * `form/dangling-reference` conflicts. The name analysis itself is `name-analysis.ts`; carrying a
 * rename into the other side's edits of one form is `rename-carry.ts`.
 */
import { termsEqual, type Term } from '../../coreform/term.js';
import { body, sameBody, type Aligned, type SideModule } from '../align/merge-records.js';
import { checkDeadline } from '../common/deadline.js';
import type { MarkerOptions } from '../common/diff3.js';
import { isRun, runHasForm } from '../segment/opaque-run.js';
import { containsText, qualifiedCounts } from './name-analysis.js';
import { carryRename, label, renameInElement, sideIndex, termOf, type SideIds } from './rename-carry.js';
import { substitute } from './tree-binders.js';

/**
 * The semantic pass: renames one side made are carried into the other side's edits
 * of the forms that mention the old name ({@link carryRename}) and into its new references;
 * references one side's changes add to a definition the other side removed become
 * `form/dangling-reference` conflicts. Mutates the resolutions (and, when a renamed definition is
 * paired with the other side's edit of it, the alignment and `ids`); notes go to `messages`.
 */
export function semanticPass(
  aligned: Aligned[],
  B: SideModule,
  O: SideModule,
  T: SideModule,
  ids: SideIds,
  markers: MarkerOptions,
  messages: string[],
  deadline: number,
): void {
  const idx = (a: Aligned, side: 'ours' | 'theirs'): number => (side === 'ours' ? a.o : a.t);
  const mod = (side: 'ours' | 'theirs'): SideModule => (side === 'ours' ? O : T);
  // Whether each aligned element changed on each side, compared once (`changedO`/`changedT`).
  const changed = (a: Aligned, side: 'ours' | 'theirs'): boolean => {
    const flag = side === 'ours' ? a.changedO : a.changedT;
    if (flag !== 0) return flag === 2;
    const i = idx(a, side);
    const yes = i >= 0 && (a.b < 0 || !sameBody(mod(side), i, B, a.b));
    if (side === 'ours') a.changedO = yes ? 2 : 1;
    else a.changedT = yes ? 2 : 1;
    return yes;
  };
  for (const x of ['ours', 'theirs'] as const) {
    const X = mod(x);
    const found = goneNames(aligned, B, X, x, changed, deadline);
    if (found === undefined) continue;
    const { xNew, xNames, gone } = found;
    // From here on only base forms that mention a gone name are read, and none is in a run: a run
    // is the same on every side, so a run mentioning the name would keep it on X (a definition
    // mentions its own name). Runs are skipped below for that reason.
    const fresh = [...xNames.keys()].filter((m) => !containsText(B.m.text, m));
    const xNewTerms = xNew.map((a) => termOf(X, idx(a, x))).filter((t): t is Term => t !== undefined);
    for (const n of gone) {
      const baseMentions = B.m.elements
        .map((e, i) => ({ e, i }))
        .filter(({ e, i }) => e.kind === 'form' && !isRun(e) && containsText(body(B, i), n) && qualifiedCounts(e.term).has(n));
      const renamedTo = renameTarget(n, baseMentions, fresh, xNewTerms);
      const defIndex = B.m.elements.findIndex((e) => e.defName === n);
      const removedDef = defIndex >= 0 && !X.m.elements.some((e) => e.defName === n);
      if (renamedTo === undefined && !removedDef) continue;
      const carried =
        renamedTo === undefined
          ? new Set<Aligned>()
          : carryRename(
              n,
              renamedTo,
              baseMentions.map(({ i }) => i),
              x,
              aligned,
              B,
              O,
              T,
              ids,
              changed,
              markers,
              messages,
              deadline,
            );
      markNewReferences(n, renamedTo, x, aligned, B, O, T, carried, changed, messages);
    }
  }
}

/**
 * X's changed elements with the qualified names they mention (counted), and the names gone on X:
 * mentioned by base forms X touched, by no changed form of X, and by no form of X at all (unchanged
 * forms checked through a text pre-filter; a run of a reduced merge reads only its forms that hold
 * the name's text). Undefined when no name is gone.
 */
function goneNames(
  aligned: readonly Aligned[],
  B: SideModule,
  X: SideModule,
  x: 'ours' | 'theirs',
  changed: (a: Aligned, side: 'ours' | 'theirs') => boolean,
  deadline: number,
): { xNew: Aligned[]; xNames: Map<string, number>; gone: string[] } | undefined {
  // Qualified names in base forms X touched that X's changed forms no longer mention. One pass
  // over the elements finds both lists (X's changed ones, and the base ones X touched).
  const xNew: Aligned[] = [];
  const xTouched: Aligned[] = [];
  for (let ai = 0; ai < aligned.length; ai++) {
    const a = aligned[ai]!;
    const i = sideIndex(a, x);
    if (i >= 0 && changed(a, x)) {
      xNew.push(a);
      if (a.b >= 0) xTouched.push(a);
    } else if (i < 0 && a.b >= 0) xTouched.push(a);
  }
  const xNames = new Map<string, number>();
  for (const a of xNew) for (const [k, n] of qualifiedCounts(termOf(X, sideIndex(a, x)))) xNames.set(k, (xNames.get(k) ?? 0) + n);
  const candidates = new Set<string>();
  for (const a of xTouched) {
    for (const k of qualifiedCounts(termOf(B, a.b)).keys()) if (!xNames.has(k)) candidates.add(k);
  }
  if (candidates.size === 0) return undefined;
  checkDeadline(deadline);
  // Gone: no form of X mentions it (unchanged forms checked through a text pre-filter; a run of a
  // reduced merge reads only its forms that hold the name's text).
  const gone = [...candidates].filter((n) => {
    if (!containsText(X.m.text, n)) return true;
    const mentions = (t: Term): boolean => qualifiedCounts(t).has(n);
    return !X.m.elements.some((e, i) => e.kind === 'form' && containsText(body(X, i), n) && (isRun(e) ? runHasForm(e, n, mentions) : mentions(e.term!)));
  });
  return gone.length === 0 ? undefined : { xNew, xNames, gone };
}

/**
 * The name X renamed the gone name `n` to: the first of `fresh` (names X's changed forms mention
 * that base's text does not hold) such that every base form mentioning `n` appears among X's
 * changed forms with `n` substituted. Undefined when there is none (or no base form mentions `n`).
 */
function renameTarget(n: string, baseMentions: readonly { e: { term?: Term } }[], fresh: readonly string[], xNewTerms: readonly Term[]): string | undefined {
  for (const m of fresh) {
    const r = new Map([[n, m]]);
    const ok = baseMentions.every(({ e }) => {
      let want: Term;
      try {
        want = substitute(e.term!, r);
      } catch {
        return false;
      }
      return xNewTerms.some((t) => termsEqual(t, want));
    });
    if (ok && baseMentions.length > 0) return m;
  }
  return undefined;
}

/**
 * Y's changed forms (not already handled by the rename, `carried`) that reference `n` more often
 * than base's version: when X renamed `n` (`renamedTo`), the new references are renamed too where
 * the form's resolution is one text; otherwise (X deleted `(def n …)`, or the rename cannot be
 * applied) they become `form/dangling-reference` conflicts.
 */
function markNewReferences(
  n: string,
  renamedTo: string | undefined,
  x: 'ours' | 'theirs',
  aligned: readonly Aligned[],
  B: SideModule,
  O: SideModule,
  T: SideModule,
  carried: ReadonlySet<Aligned>,
  changed: (a: Aligned, side: 'ours' | 'theirs') => boolean,
  messages: string[],
): void {
  const y = x === 'ours' ? 'theirs' : 'ours';
  const mod = (side: 'ours' | 'theirs'): SideModule => (side === 'ours' ? O : T);
  const Y = mod(y);
  // Y's forms that newly reference n.
  for (const a of aligned) {
    if (carried.has(a) || !changed(a, y)) continue;
    const yi = sideIndex(a, y);
    if (Y.m.elements[yi]!.defName === n) continue;
    const now = qualifiedCounts(termOf(Y, yi)).get(n) ?? 0;
    const before = a.b >= 0 ? (qualifiedCounts(termOf(B, a.b)).get(n) ?? 0) : 0;
    if (now <= before) continue;
    const r = a.resolution;
    if (renamedTo !== undefined) {
      const bytes = r.kind === 'take' ? body(mod(r.side as 'ours' | 'theirs'), r.index) : r.kind === 'merged' && !r.inner ? r.bytes : undefined;
      const renamed = bytes ? renameInElement(bytes, new Map([[n, renamedTo]])) : undefined;
      if (renamed) {
        const el = r.kind === 'take' ? mod(r.side as 'ours' | 'theirs').m.elements[r.index]! : undefined;
        a.resolution = { kind: 'merged', bytes: renamed, endsWithComment: el ? el.endsWithComment : (r as { endsWithComment: boolean }).endsWithComment };
        messages.push(`carried ${x}' rename ${n} → ${renamedTo} into ${y}' new reference in ${label(Y, yi)}`);
        continue;
      }
    }
    if (r.kind === 'conflict' && r.code !== 'form/divergent-edit') continue;
    const what = renamedTo !== undefined ? `renamed ${n} to ${renamedTo} (the rename could not be carried over)` : `deleted (def ${n} …)`;
    a.resolution = {
      kind: 'conflict',
      code: 'form/dangling-reference',
      b: a.b,
      o: a.o,
      t: a.t,
      detail: `${x} ${what}, which ${y}' ${label(Y, yi)} newly references`,
    };
  }
}
