/**
 * The rename half of the semantic pass (`semantic-pass.ts`): X's rename `n` → `m` carried into Y's
 * edits of the forms that mention `n` ({@link carryRename}), with the helpers both halves share
 * (an element's term and label, a side's index of an aligned element, the rename inside one
 * element's text).
 */
import { readModuleSpans } from '../../coreform/read.js';
import { termsEqual, type Term } from '../../coreform/term.js';
import { GcError } from '../../util/errors.js';
import { DELETED, body, type Aligned, type Resolution, type SideModule } from '../align/merge-records.js';
import { isTimeout } from '../common/deadline.js';
import { concatBytes, sameBytes, type MarkerOptions } from '../common/diff3.js';
import { NeedsWholeMerge, type Windows } from '../segment/reduced-merge-rules.js';
import { mergeInside } from './resolve.js';
import { segmentModule } from '../segment/segments.js';
import { bindsAny, containsText, qualifiedCounts } from './name-analysis.js';
import { substitute, substituteText } from './tree-binders.js';
import type { Side } from '../common/result.js';
import { lineColumn } from '../../coreform/parse-error.js';

/** The element's term (undefined for comment blocks). */
export function termOf(s: SideModule, i: number): Term | undefined {
  return s.m.elements[i]!.term;
}

/** `(def NAME …)` label of an element for messages. */
export function label(s: SideModule, i: number): string {
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
export function renameInElement(bytes: Uint8Array, renames: ReadonlyMap<string, string>): Uint8Array | undefined {
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

/** Each side's element ids (aligned indices, mutable) and, in a reduced merge, each element's window number. */
export interface SideIds {
  oIds: number[];
  tIds: number[];
  windows: Windows | undefined;
}

/** An aligned element's index on ours or theirs (-1 when that side has none). */
export function sideIndex(a: Aligned, side: 'ours' | 'theirs'): number {
  return side === 'ours' ? a.o : a.t;
}

/**
 * Carries X's rename `n` → `m` (found by `semanticPass`, `semantic-pass.ts`) into Y's edits of the base forms
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
export function carryRename(
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
  const c: RenameCarry = {
    n,
    m,
    x,
    y,
    B,
    X: x === 'ours' ? O : T,
    Y: x === 'ours' ? T : O,
    renames: new Map([[n, m]]),
    names: new Set([n, m]),
    aligned,
    ids,
    done: new Set<Aligned>(),
    markers,
    messages,
    deadline,
  };
  for (const bi of mentions) {
    const a = aligned[bi]!; // base elements have ids 0..nB-1
    const yi = sideIndex(a, y);
    if (yi < 0) carryIntoDeletion(c, a, bi);
    else if (!changed(a, y)) adoptIntoKept(c, a, bi);
    else if (a.resolution.kind === 'merged' && !a.resolution.inner) checkCleanMerge(c, a, yi);
    else carryIntoEdit(c, a, bi, yi);
  }
  return c.done;
}

/** What {@link carryRename} works with: X's rename `n` → `m`, the three modules, and the merge state it updates. */
interface RenameCarry {
  n: string;
  m: string;
  x: 'ours' | 'theirs';
  y: 'ours' | 'theirs';
  B: SideModule;
  X: SideModule;
  Y: SideModule;
  renames: ReadonlyMap<string, string>;
  names: ReadonlySet<string>;
  aligned: Aligned[];
  ids: SideIds;
  /** The aligned elements whose resolution was replaced. */
  done: Set<Aligned>;
  markers: MarkerOptions;
  messages: string[];
  deadline: number;
}

/** X's `(def m …)` when it is X's alone (Y has no element of that key), else undefined. */
function renamedDef(c: RenameCarry): Aligned | undefined {
  return c.aligned.find((e) => e.b < 0 && sideIndex(e, c.y) < 0 && sideIndex(e, c.x) >= 0 && c.X.m.elements[sideIndex(e, c.x)]!.defName === c.m);
}

/** Pairs X's `(def m …)` (`adopt`, X's element `xi`) with base's `(def n …)` (`a`, base index `bi`), in X's place. */
function pairRenamedDef(c: RenameCarry, a: Aligned, adopt: Aligned, xi: number, bi: number): void {
  const w = c.ids.windows;
  if (w && (c.x === 'ours' ? w.o : w.t)[xi] !== w.b[bi]) throw new NeedsWholeMerge();
  if (c.x === 'ours') {
    a.o = xi;
    a.changedO = 2;
    c.ids.oIds[xi] = bi;
  } else {
    a.t = xi;
    a.changedT = 2;
    c.ids.tIds[xi] = bi;
  }
  adopt.o = -1;
  adopt.t = -1;
  adopt.changedO = 1;
  adopt.changedT = 1;
  adopt.resolution = DELETED;
  c.done.add(adopt);
}

/** X's term for element `xi` is base's `bi` with `n` renamed. */
function onlyRenamed(c: RenameCarry, bi: number, xi: number): boolean {
  const bTerm = termOf(c.B, bi);
  const xTerm = termOf(c.X, xi);
  if (!bTerm || !xTerm) return false;
  try {
    return termsEqual(xTerm, substitute(bTerm, c.renames));
  } catch {
    return false;
  }
}

/** Y deleted base's element `bi` (aligned `a`), which mentions `n`. */
function carryIntoDeletion(c: RenameCarry, a: Aligned, bi: number): void {
  const { n, m, x, y, B, X } = c;
  const r = a.resolution;
  if (sideIndex(a, x) < 0) {
    // Y deleted the definition X renamed: a conflict, as for any definition one side deleted
    // and the other changed (otherwise X's renamed copy would quietly survive the deletion).
    const adopt = B.m.elements[bi]!.defName === n ? renamedDef(c) : undefined;
    if (r.kind !== 'deleted' || !adopt || !onlyRenamed(c, bi, sideIndex(adopt, x))) return;
    const xi = sideIndex(adopt, x);
    pairRenamedDef(c, a, adopt, xi, bi);
    a.resolution = { kind: 'conflict', code: 'form/delete-modify', b: bi, o: a.o, t: a.t, detail: `${y} deleted it, ${x} renamed it to ${m}` };
    c.done.add(a);
    return;
  }
  // Y deleted a form X only renamed in (its text is base's with the symbols rewritten): deleted.
  const xi = sideIndex(a, x);
  if (r.kind !== 'conflict' || r.code !== 'form/delete-modify') return;
  const renamed = renameInElement(body(B, bi), c.renames);
  if (!renamed || !sameBytes(renamed, body(X, xi))) return;
  a.resolution = DELETED;
  c.done.add(a);
  c.messages.push(`carried ${x}' rename ${n} → ${m} into ${y}' deletion of ${label(B, bi)}`);
}

/**
 * Y kept base's element `bi` (aligned `a`): when it is the definition X renamed, X's `(def m …)`
 * takes the place of base's `(def n …)` in the order as well, so that a form or comment block Y
 * inserted right before the definition stays before it (as a new element of X alone, the renamed
 * definition would come first).
 */
function adoptIntoKept(c: RenameCarry, a: Aligned, bi: number): void {
  const r = a.resolution;
  const adopt = r.kind === 'deleted' && sideIndex(a, c.x) < 0 && c.B.m.elements[bi]!.defName === c.n ? renamedDef(c) : undefined;
  if (adopt && adopt.resolution.kind === 'take') {
    const xi = sideIndex(adopt, c.x);
    pairRenamedDef(c, a, adopt, xi, bi);
    a.resolution = { kind: 'take', side: c.x, index: xi };
    c.done.add(a);
  }
}

/**
 * The element `a` combined cleanly: X's renamed symbols are in it. Y's edit (Y's element `yi`) may
 * still hold `n` (a reference it added, renamed later with Y's other new references), unless Y's
 * version itself uses `m` or binds either name: then nothing can be renamed safely, and a clean
 * result would reference a name X removed, so it becomes a `form/dangling-reference` conflict.
 */
function checkCleanMerge(c: RenameCarry, a: Aligned, yi: number): void {
  const { n, m, x, y, Y } = c;
  const r = a.resolution as Extract<Resolution, { kind: 'merged' }>;
  const yTerm = termOf(Y, yi);
  if (yTerm && (qualifiedCounts(yTerm).has(m) || bindsAny(yTerm, c.names)) && mentionsName(r.bytes, n)) {
    a.resolution = {
      kind: 'conflict',
      code: 'form/dangling-reference',
      b: a.b,
      o: a.o,
      t: a.t,
      detail: `${x} renamed ${n} to ${m}, which ${y}' ${label(Y, yi)} also uses or binds (the rename could not be carried over)`,
    };
    c.done.add(a);
  }
}

/** Y edited base's element `bi` (aligned `a`, Y's element `yi`) and the per-element merge did not combine it with X's: merged again with the rename. */
function carryIntoEdit(c: RenameCarry, a: Aligned, bi: number, yi: number): void {
  const { n, m, x, y, B, X, Y } = c;
  const r = a.resolution;
  if (!(r.kind === 'conflict' && (r.code === 'form/divergent-edit' || r.code === 'form/delete-modify')) && !(r.kind === 'merged' && r.inner)) return;
  let xi = sideIndex(a, x);
  let adopt: Aligned | undefined;
  if (xi < 0) {
    adopt = B.m.elements[bi]!.defName === n ? renamedDef(c) : undefined;
    if (!adopt) return;
    xi = sideIndex(adopt, x);
  } else if (r.kind === 'conflict' && r.code === 'form/delete-modify') return;
  const bTerm = termOf(B, bi);
  const yTerm = termOf(Y, yi);
  // Y's edit must leave a reference in place: one that removed every reference (or renamed it
  // too, differently) conflicts with the rename as before.
  const yNames = yTerm && qualifiedCounts(yTerm);
  if (!bTerm || !yTerm || !yNames || !yNames.has(n) || yNames.has(m) || bindsAny(bTerm, c.names) || bindsAny(yTerm, c.names) || !onlyRenamed(c, bi, xi)) return;
  const local: string[] = [];
  const merged = mergeRenamed(body(B, bi), body(X, xi), body(Y, yi), Y.m.elements[yi]!.endsWithComment, x, c.renames, c.deadline, c.markers, local);
  if (!merged) return;
  // X's (def m …) takes the place of its (def n …): one element, merged, where X has it.
  if (adopt) pairRenamedDef(c, a, adopt, xi, bi);
  a.resolution = merged;
  c.done.add(a);
  for (const note of local) c.messages.push(note);
  c.messages.push(`carried ${x}' rename ${n} → ${m} into ${y}' edit of ${label(Y, yi)}`);
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
