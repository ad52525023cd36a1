/**
 * The semantic pass of the text merge (after resolution, before the order merge): renames one side
 * made are carried into the other side's edits of the forms that mention the old name, and
 * references one side's changes add to a definition the other side removed become
 * `form/dangling-reference` conflicts. The name analysis itself is semantic.ts.
 */
import { readModuleSpans } from '../../coreform/read.js';
import { termsEqual, type Term } from '../../coreform/term.js';
import { GcError } from '../../util/errors.js';
import { DELETED, body, sameBody, type Aligned, type Resolution, type SideModule } from '../align/merge-records.js';
import { checkDeadline, isTimeout } from '../common/deadline.js';
import { concatBytes, sameBytes, type MarkerOptions } from '../common/diff3.js';
import { NeedsWholeMerge, type Windows } from '../segment/reduced-merge-rules.js';
import { mergeInside } from './resolve.js';
import { isRun, runHasForm } from '../segment/opaque-run.js';
import { segmentModule } from '../segment/segments.js';
import { bindsAny, containsText, qualifiedCounts } from './name-analysis.js';
import { substitute, substituteText } from './tree-binders.js';
import type { Side } from '../common/result.js';
import { lineColumn } from '../../coreform/parse-error.js';

/** The element's term (undefined for comment blocks). */
function termOf(s: SideModule, i: number): Term | undefined {
  return s.m.elements[i]!.term;
}

/** `(def NAME …)` label of an element for messages. */
function label(s: SideModule, i: number): string {
  const n = s.m.elements[i]!.defName;
  if (n !== undefined) return `(def ${n} …)`;
  const { line, column } = lineColumn(s.m.text, s.m.elements[i]!.formStart);
  return `the form at ${s.side} ${line}:${column}`;
}

/** Whether one element's form mentions the qualified name `n` (true when it does not read: errs towards yes). */
function mentionsName(bytes: Uint8Array, n: string): boolean {
  if (!containsText(bytes, n)) return false;
  try {
    const r = readModuleSpans(bytes);
    return r.forms.length !== 1 || qualifiedCounts(r.forms[0]!.term).has(n);
  } catch (error) {
    if (error instanceof GcError) return true;
    throw error;
  }
}

/** Rewrites the symbols `renames` names in one element's bytes (its comments are kept). */
function renameInElement(bytes: Uint8Array, renames: ReadonlyMap<string, string>): Uint8Array | undefined {
  try {
    const r = readModuleSpans(bytes);
    if (r.forms.length !== 1) return undefined;
    const node = r.forms[0]!.node;
    return concatBytes([bytes.subarray(0, node.start), substituteText(bytes, node, renames), bytes.subarray(node.end)]);
  } catch (error) {
    if (error instanceof GcError) return undefined;
    throw error;
  }
}

/**
 * Carries X's rename `n` → `m` (found by {@link semanticPass}) into Y's edits of the base forms
 * that mention `n` (`mentions`, base indices), where the per-element merge did not combine them
 * (a conflict, or conflicts marked inside the form): e.g. X renamed `f` to `g` everywhere and Y
 * wrapped or rewrote the call `(f x)`, or edited the body of `(def f …)` itself. X's version of
 * such a form is base's with `n` substituted (as terms; checked here again), so the element is
 * merged again with the rename applied to base's and Y's text first ({@link mergeRenamed}): the
 * result is Y's edit with only the symbols `n` rewritten, plus whatever else X changed in it
 * (layout, comments). A renamed definition is a new element on X (aligned by its new name), so
 * it is paired here with base's `(def n …)` and Y's edit of it (in X's place of the order).
 *
 * Not carried (the element keeps its conflict): Y's version no longer mentions `n` (Y removed
 * the reference, or renamed it too, differently) or mentions `m` itself, or a `fn` parameter or
 * `let` binding named `n` or `m` occurs in base's or Y's version (a local binder would make the
 * substitution change what a symbol refers to), or the merge again does not come out clean. A
 * form Y deleted in which X changed nothing but the symbols stays deleted; references Y added in
 * a form it edited are renamed with the rest. When Y deleted the definition X renamed, the
 * renamed definition becomes a `form/delete-modify` conflict (it would otherwise survive the
 * deletion under its new name).
 * @returns the aligned elements whose resolution it replaced.
 * @throws NeedsWholeMerge in a reduced merge when X's renamed definition and base's are in
 *   different windows.
 */
function carryRename(
  n: string,
  m: string,
  mentions: readonly number[],
  x: 'ours' | 'theirs',
  aligned: Aligned[],
  B: SideModule,
  O: SideModule,
  T: SideModule,
  ids: SideIds,
  changed: (a: Aligned, side: 'ours' | 'theirs') => boolean,
  markers: MarkerOptions,
  messages: string[],
  deadline: number,
): Set<Aligned> {
  const y = x === 'ours' ? 'theirs' : 'ours';
  const X = x === 'ours' ? O : T;
  const Y = x === 'ours' ? T : O;
  const idx = (a: Aligned, side: 'ours' | 'theirs'): number => (side === 'ours' ? a.o : a.t);
  const renames = new Map([[n, m]]);
  const names = new Set([n, m]);
  const done = new Set<Aligned>();
  /** X's `(def m …)` when it is X's alone (Y has no element of that key), else undefined. */
  const renamedDef = (): Aligned | undefined => aligned.find((c) => c.b < 0 && idx(c, y) < 0 && idx(c, x) >= 0 && X.m.elements[idx(c, x)]!.defName === m);
  /** Pairs X's `(def m …)` (`adopt`, X's element `xi`) with base's `(def n …)` (`a`, base index `bi`), in X's place. */
  const pair = (a: Aligned, adopt: Aligned, xi: number, bi: number): void => {
    const w = ids.windows;
    if (w && (x === 'ours' ? w.o : w.t)[xi] !== w.b[bi]) throw new NeedsWholeMerge();
    if (x === 'ours') {
      a.o = xi;
      a.changedO = 2;
      ids.oIds[xi] = bi;
    } else {
      a.t = xi;
      a.changedT = 2;
      ids.tIds[xi] = bi;
    }
    adopt.o = -1;
    adopt.t = -1;
    adopt.changedO = 1;
    adopt.changedT = 1;
    adopt.resolution = DELETED;
    done.add(adopt);
  };
  /** X's term for element `xi` is base's `bi` with `n` renamed. */
  const onlyRenamed = (bi: number, xi: number): boolean => {
    const bTerm = termOf(B, bi);
    const xTerm = termOf(X, xi);
    if (!bTerm || !xTerm) return false;
    try {
      return termsEqual(xTerm, substitute(bTerm, renames));
    } catch {
      return false;
    }
  };
  for (const bi of mentions) {
    const a = aligned[bi]!; // base elements have ids 0..nB-1
    const yi = idx(a, y);
    const r = a.resolution;
    if (yi < 0 && idx(a, x) < 0) {
      // Y deleted the definition X renamed: a conflict, as for any definition one side deleted
      // and the other changed (otherwise X's renamed copy would quietly survive the deletion).
      const adopt = B.m.elements[bi]!.defName === n ? renamedDef() : undefined;
      if (r.kind !== 'deleted' || !adopt || !onlyRenamed(bi, idx(adopt, x))) continue;
      const xi = idx(adopt, x);
      pair(a, adopt, xi, bi);
      a.resolution = { kind: 'conflict', code: 'form/delete-modify', b: bi, o: a.o, t: a.t, detail: `${y} deleted it, ${x} renamed it to ${m}` };
      done.add(a);
      continue;
    }
    if (yi < 0) {
      // Y deleted a form X only renamed in (its text is base's with the symbols rewritten): deleted.
      const xi = idx(a, x);
      if (r.kind !== 'conflict' || r.code !== 'form/delete-modify') continue;
      const renamed = renameInElement(body(B, bi), renames);
      if (!renamed || !sameBytes(renamed, body(X, xi))) continue;
      a.resolution = DELETED;
      done.add(a);
      messages.push(`carried ${x}' rename ${n} → ${m} into ${y}' deletion of ${label(B, bi)}`);
      continue;
    }
    if (!changed(a, y)) {
      // Y kept the definition X renamed: X's `(def m …)` takes the place of base's `(def n …)` in
      // the order as well, so that a form or comment block Y inserted right before the definition
      // stays before it (as a new element of X alone, the renamed definition would come first).
      const adopt = r.kind === 'deleted' && idx(a, x) < 0 && B.m.elements[bi]!.defName === n ? renamedDef() : undefined;
      if (adopt && adopt.resolution.kind === 'take') {
        const xi = idx(adopt, x);
        pair(a, adopt, xi, bi);
        a.resolution = { kind: 'take', side: x, index: xi };
        done.add(a);
      }
      continue;
    }
    if (r.kind === 'merged' && !r.inner) {
      // Combined cleanly: X's renamed symbols are in it. Y's edit may still hold `n` (a reference
      // it added, renamed below with Y's other new references), unless Y's version itself uses
      // `m` or binds either name: then nothing can be renamed safely, and a clean result would
      // reference a name X removed.
      const yTerm = termOf(Y, yi);
      if (yTerm && (qualifiedCounts(yTerm).has(m) || bindsAny(yTerm, names)) && mentionsName(r.bytes, n)) {
        a.resolution = {
          kind: 'conflict',
          code: 'form/dangling-reference',
          b: a.b,
          o: a.o,
          t: a.t,
          detail: `${x} renamed ${n} to ${m}, which ${y}' ${label(Y, yi)} also uses or binds (the rename could not be carried over)`,
        };
        done.add(a);
      }
      continue;
    }
    if (!(r.kind === 'conflict' && (r.code === 'form/divergent-edit' || r.code === 'form/delete-modify')) && !(r.kind === 'merged' && r.inner)) continue;
    let xi = idx(a, x);
    let adopt: Aligned | undefined;
    if (xi < 0) {
      adopt = B.m.elements[bi]!.defName === n ? renamedDef() : undefined;
      if (!adopt) continue;
      xi = idx(adopt, x);
    } else if (r.kind === 'conflict' && r.code === 'form/delete-modify') continue;
    const bTerm = termOf(B, bi);
    const yTerm = termOf(Y, yi);
    // Y's edit must leave a reference in place: one that removed every reference (or renamed it
    // too, differently) conflicts with the rename as before.
    const yNames = yTerm && qualifiedCounts(yTerm);
    if (!bTerm || !yTerm || !yNames || !yNames.has(n) || yNames.has(m) || bindsAny(bTerm, names) || bindsAny(yTerm, names) || !onlyRenamed(bi, xi)) continue;
    const local: string[] = [];
    const merged = mergeRenamed(body(B, bi), body(X, xi), body(Y, yi), Y.m.elements[yi]!.endsWithComment, x, renames, deadline, markers, local);
    if (!merged) continue;
    // X's (def m …) takes the place of its (def n …): one element, merged, where X has it.
    if (adopt) pair(a, adopt, xi, bi);
    a.resolution = merged;
    done.add(a);
    for (const note of local) messages.push(note);
    messages.push(`carried ${x}' rename ${n} → ${m} into ${y}' edit of ${label(Y, yi)}`);
  }
  return done;
}

/**
 * Merges one element again with X's rename applied to base's and Y's text first
 * ({@link renameInElement}: only the symbols are rewritten): when X's text is exactly base's
 * renamed, the result is Y's renamed text; otherwise {@link mergeInside} on the three texts (X's
 * other changes are then layout or comments). Undefined unless clean.
 * @param yEndsWithComment whether Y's element ends with a line comment (kept by the rename).
 */
function mergeRenamed(
  base: Uint8Array,
  xText: Uint8Array,
  yText: Uint8Array,
  yEndsWithComment: boolean,
  x: 'ours' | 'theirs',
  renames: ReadonlyMap<string, string>,
  deadline: number,
  markers: MarkerOptions,
  messages: string[],
): Resolution | undefined {
  const b = renameInElement(base, renames);
  const t = renameInElement(yText, renames);
  if (!b || !t) return undefined;
  if (sameBytes(xText, b)) return { kind: 'merged', bytes: t, endsWithComment: yEndsWithComment };
  const one = (side: Side, bytes: Uint8Array): SideModule | undefined => {
    try {
      const m = segmentModule(bytes, deadline, false);
      return m.elements.length === 1 ? { side, m } : undefined;
    } catch (error) {
      if (error instanceof GcError && !isTimeout(error)) return undefined;
      throw error;
    }
  };
  const Bm = one('base', b);
  const Xm = one(x, xText);
  const Ym = one(x === 'ours' ? 'theirs' : 'ours', t);
  if (!Bm || !Xm || !Ym) return undefined;
  const r = x === 'ours' ? mergeInside(0, 0, 0, Bm, Xm, Ym, deadline, markers, messages) : mergeInside(0, 0, 0, Bm, Ym, Xm, deadline, markers, messages);
  return r && r.kind === 'merged' && !r.inner ? r : undefined;
}

/** Each side's element ids (aligned indices, mutable) and, in a reduced merge, each element's window number. */
export interface SideIds {
  oIds: number[];
  tIds: number[];
  windows: Windows | undefined;
}

/**
 * The semantic pass (semantic.ts): renames one side made are carried into the other side's edits
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
    const y = x === 'ours' ? 'theirs' : 'ours';
    const X = mod(x);
    const Y = mod(y);
    // Qualified names in base forms X touched that X's changed forms no longer mention. One pass
    // over the elements finds both lists (X's changed ones, and the base ones X touched).
    const xNew: Aligned[] = [];
    const xTouched: Aligned[] = [];
    for (let ai = 0; ai < aligned.length; ai++) {
      const a = aligned[ai]!;
      const i = idx(a, x);
      if (i >= 0 && changed(a, x)) {
        xNew.push(a);
        if (a.b >= 0) xTouched.push(a);
      } else if (i < 0 && a.b >= 0) xTouched.push(a);
    }
    const xNames = new Map<string, number>();
    for (const a of xNew) for (const [k, n] of qualifiedCounts(termOf(X, idx(a, x)))) xNames.set(k, (xNames.get(k) ?? 0) + n);
    const candidates = new Set<string>();
    for (const a of xTouched) {
      for (const k of qualifiedCounts(termOf(B, a.b)).keys()) if (!xNames.has(k)) candidates.add(k);
    }
    if (candidates.size === 0) continue;
    checkDeadline(deadline);
    // Gone: no form of X mentions it (unchanged forms checked through a text pre-filter; a run of a
    // reduced merge reads only its forms that hold the name's text).
    const gone = [...candidates].filter((n) => {
      if (!containsText(X.m.text, n)) return true;
      const mentions = (t: Term): boolean => qualifiedCounts(t).has(n);
      return !X.m.elements.some((e, i) => e.kind === 'form' && containsText(body(X, i), n) && (isRun(e) ? runHasForm(e, n, mentions) : mentions(e.term!)));
    });
    if (gone.length === 0) continue;
    // From here on only base forms that mention a gone name are read, and none is in a run: a run
    // is the same on every side, so a run mentioning the name would keep it on X (a definition
    // mentions its own name). Runs are skipped below for that reason.
    const fresh = [...xNames.keys()].filter((m) => !containsText(B.m.text, m));
    const xNewTerms = xNew.map((a) => termOf(X, idx(a, x))).filter((t): t is Term => t !== undefined);
    for (const n of gone) {
      const baseMentions = B.m.elements
        .map((e, i) => ({ e, i }))
        .filter(({ e, i }) => e.kind === 'form' && !isRun(e) && containsText(body(B, i), n) && qualifiedCounts(e.term).has(n));
      let renamedTo: string | undefined;
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
        if (ok && baseMentions.length > 0) {
          renamedTo = m;
          break;
        }
      }
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
      // Y's forms that newly reference n.
      for (const a of aligned) {
        if (carried.has(a) || !changed(a, y)) continue;
        const yi = idx(a, y);
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
  }
}
