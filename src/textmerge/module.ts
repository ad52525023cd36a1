/**
 * The format-preserving structural merge of one `.gc` module's text (issue #3): aligns top-level
 * forms, merges their order three-way, merges each form's text by the v0.1 rules 1–3, and marks
 * only the forms that really conflict.
 *
 * All texts are LF-normalized UTF-8 without BOM (newline.ts does the rest); offsets are 0-based
 * bytes. The result is built from pieces of the inputs, so untouched forms are copied byte for byte.
 *
 * Steps (each a function below, called in order by {@link mergeModuleText}):
 * 1. `segmentModule` base, `segmentLike` ours and theirs (forms with their attached comments,
 *    comment blocks, whitespace; a side is read only where it differs from base, base's elements
 *    are reused around that: same result as reading it whole).
 * 2. `alignElements`: `(def NAME …)` by NAME, other forms and comment blocks by content, then
 *    unmatched non-def forms / comment blocks by position (same preceding anchor).
 * 3. `resolveElement`: SEMANTIC_PATCH_MERGE_v0.1.md rules 1–3 on each element's text; both changed
 *    → `mergeInside` (part by part, else a line-level diff3), kept only when clean and it reads back
 *    as one element of the same kind and name; delete/modify and divergent add/add are conflicts.
 * 4. `mergeOrder` (order.ts): ours' order, with theirs' additions, moves and kept-by-theirs
 *    conflicts placed after their predecessor on theirs' side (after ours' additions at that spot).
 * 5. `render`: separators from a side where the two neighbours were adjacent, conflicts as one
 *    marker block per element.
 * 6. Safety net: the result (and, when it has conflicts, both "take ours" and "take theirs"
 *    readings of it) must split into exactly the decided elements, byte for byte; otherwise
 *    `merge/text/unsafe` is thrown and the driver falls back to the line merge. The render proves
 *    it cheaply where it can (`Rendered.proven`: runs of one side's consecutive elements re-read as
 *    that side did; every other element is read on its own and every other boundary must pass
 *    {@link cleanBoundary}); a reading it cannot prove is re-read whole (`verifyElements`).
 *
 * Steps 2–5 usually run on fewer elements: when the two sides' changes are a few windows of a large
 * module, `segmentReduced` keeps every stretch of base neither side changed as one opaque run
 * element, and the result is the same (a step that would need to look inside a run hands over to
 * the whole merge; see docs/driver.md "Large modules").
 */
import { GcError } from '../util/errors.js';
import { checkDeadline, isTimeout } from './deadline.js';
import { concatBytes, conflictBlock, diff3, sameBytes, type MarkerOptions } from './diff3.js';
import { mergeOrder } from './order.js';
import { ByteKeyTable, isRun, runHasForm, sameRun, segmentLike, segmentModule, segmentReduced, separatorBefore, type SegmentedModule, type TextElement } from './segments.js';
import { mergeFormTree, readingOf, renderTree, substitute, substituteText, type TreeMerge } from './tree.js';
import { bindsAny, containsText, qualifiedCounts } from './semantic.js';
import { canonicalizeForm } from '../coreform/canon.js';
import { readModuleSpans, readTerm, scanFormBounds } from '../coreform/read.js';
import type { Term } from '../coreform/term.js';
import { termsEqual } from '../coreform/term.js';

/** A merge input. */
export type Side = 'base' | 'ours' | 'theirs';

/**
 * Conflict codes of the text merge, named after SEMANTIC_PATCH_MERGE_v0.1.md's:
 * `form/divergent-edit` (both sides changed one element differently and the lines overlap),
 * `form/delete-modify` (one side deleted an element the other changed),
 * `form/divergent-add` (both added the same name, or the same element, with different text),
 * `form/dangling-reference` (one side removed a definition the other side's changes newly reference;
 * issue #14).
 */
export type TextConflictCode = 'form/divergent-edit' | 'form/delete-modify' | 'form/divergent-add' | 'form/dangling-reference';

/** One marked conflict: its code, the element kind, the def name (if any) and where its markers start. */
export interface TextConflict {
  code: TextConflictCode;
  kind: 'form' | 'comment';
  name: string | undefined;
  /** 1-based line of the conflict's `<<<<<<<` marker in the normalized result. */
  line: number;
  /** Which side did what, e.g. `theirs deleted it, ours changed it` (for messages). */
  detail: string;
}

/** A piece of the result: bytes, and when they are an unchanged run of one input, where from. */
export interface TextPiece {
  bytes: Uint8Array;
  from: { side: Side; start: number; end: number } | undefined;
}

/** The merged module. */
export interface TextMergeResult {
  /** The LF-normalized result (with markers when `conflicts` is non-empty). */
  text: Uint8Array;
  /** `text` as pieces (their concatenation), for newline restoration. */
  pieces: TextPiece[];
  conflicts: TextConflict[];
  /** Notes for standard error (renames carried over). */
  messages: string[];
  /**
   * Counts: elements in the result (a run of unchanged elements a reduced merge kept whole counts
   * as one), elements merged inside (both sides changed), conflicts, and readings the safety net had
   * to re-read whole (the cheap proof did not settle them); `reduced`: the merge worked on the
   * changed windows only (segmentReduced).
   */
  stats: { elements: number; merged: number; conflicts: number; fullRereads: number; reduced: boolean };
}

/** Options of {@link mergeModuleText}. */
export interface TextMergeOptions {
  /** Marker size, style and labels for conflict blocks. */
  markers: MarkerOptions;
  /** ms timestamp (`performance.now()` clock); `TimeoutError` after it. Default: none. */
  deadline?: number;
  /**
   * Tests: also re-read every reading the cheap safety net proved, and throw a plain Error when the
   * full re-read rejects one (the cheap proof must never accept what the full re-read rejects).
   */
  checkSafetyNet?: boolean;
  /**
   * The side whose bytes to copy when ours and theirs are equal (default ours): the side whose line
   * endings the result follows, so that its raw bytes can be kept (newline.ts `chooseOutputStyle`).
   */
  prefer?: 'ours' | 'theirs';
  /**
   * Whether to merge the changed windows only (segmentReduced: the stretches of base neither side
   * changed stay whole; same result): `auto` (default) when the windows hold at most half of base,
   * `always` whenever the texts allow it, `never`. With `checkSafetyNet` a reduced merge is also
   * compared with the whole merge.
   */
  reduce?: 'auto' | 'always' | 'never';
}

/** Error code: the structural merge cannot represent this merge or failed its own check. */
export const TEXT_UNSAFE = 'merge/text/unsafe';

type Resolution =
  | { kind: 'take'; side: Side; index: number }
  | { kind: 'merged'; bytes: Uint8Array; endsWithComment: boolean; inner?: InnerConflicts }
  | { kind: 'conflict'; code: TextConflictCode; b: number; o: number; t: number; detail?: string }
  | { kind: 'deleted' };

/** A tree-merged element with conflicts marked inside it (only the conflicting nodes' lines). */
interface InnerConflicts {
  /** 0-based lines of each `<<<<<<<` marker within the element's bytes. */
  markerLines: number[];
  /** The element with every conflict resolved to ours' / theirs' version (for the safety net). */
  ours: Uint8Array;
  theirs: Uint8Array;
}

/** Per aligned element: its index on each side (-1 = absent) and how it is resolved. */
interface Aligned {
  b: number;
  o: number;
  t: number;
  resolution: Resolution;
  /** Whether ours / theirs changed the element (0 not yet compared, 1 no, 2 yes; semanticPass). */
  changedO: number;
  changedT: number;
}

const START = -1;
const DELETED: Resolution = { kind: 'deleted' };
const LF = 0x0a;
const NEWLINE = new Uint8Array([LF]);

function unsafe(message: string): GcError {
  return new GcError(TEXT_UNSAFE, message);
}

function hasLf(b: Uint8Array): boolean {
  return b.indexOf(LF) !== -1;
}

function countLf(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) if (b[i] === LF) n++;
  return n;
}

const SEMI = 0x3b;

/** A module split into elements, with the side it came from. */
interface SideModule {
  side: Side;
  m: SegmentedModule;
}

/** True when element `i` of `x` and element `j` of `y` have the same body bytes (compared in place). */
function sameBody(x: SideModule, i: number, y: SideModule, j: number): boolean {
  const e = x.m.elements[i]!;
  const f = y.m.elements[j]!;
  // segmentLike shares base's element objects where a side's bytes are base's, at the same offsets.
  if (e === f) return true;
  // Runs of a reduced merge are the same bytes on every side (a moved copy keeps its number).
  if (sameRun(e, f)) return true;
  const n = e.end - e.start;
  if (n !== f.end - f.start) return false;
  const a = x.m.text;
  const b = y.m.text;
  const d = f.start - e.start;
  for (let p = e.start; p < e.end; p++) if (a[p] !== b[p + d]) return false;
  return true;
}

function body(s: SideModule, i: number): Uint8Array {
  const e = s.m.elements[i]!;
  return s.m.text.subarray(e.start, e.end);
}

/**
 * Matches the elements of `side` to those of `base`: by key first, then an unmatched non-def form
 * or comment block to the unmatched one of the same kind after the same matched element, when that
 * gap holds exactly one on each side (so an edited trailing expression is an edit).
 * @returns for each side element the matched base index, or -1.
 */
export function alignElements(base: readonly TextElement[], side: readonly TextElement[], baseDefs?: ByteKeyTable): Int32Array {
  const toBase = new Int32Array(side.length).fill(-1);
  const baseMatched = new Uint8Array(base.length);
  // By key: first definitions of a name by the name's bytes alone, the rest by the full key (the
  // same equality as comparing `key`, without building it for every element). `baseDefs` (the
  // segmentation's own table of base) saves building the name table here.
  let byName = baseDefs;
  const byKey = new Map<string, number>();
  const firstDef = (e: TextElement): boolean => e.keyIsDef && e.keyIndex === 0;
  if (!byName) {
    byName = new ByteKeyTable(base.length);
    for (let i = 0; i < base.length; i++) {
      const e = base[i]!;
      if (firstDef(e)) byName.add(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash, i);
    }
  }
  for (let i = 0; i < base.length; i++) {
    const e = base[i]!;
    if (!firstDef(e)) byKey.set(e.key, i);
  }
  for (let j = 0; j < side.length; j++) {
    const e = side[j]!;
    if (base[e.position] === e) {
      // Base's own element (segmentLike reused it): same bytes, same key, so it aligns with itself.
      toBase[j] = e.position;
      baseMatched[e.position] = 1;
      continue;
    }
    const i = firstDef(e) ? byName.first(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash) : (byKey.get(e.key) ?? -1);
    if (i >= 0) {
      toBase[j] = i;
      baseMatched[i] = 1;
    }
  }
  const positional = (e: TextElement): boolean => e.kind === 'comment' || !e.isDef;
  // Unmatched base elements grouped by (previous matched base element, kind).
  const gaps = new Map<string, number[]>();
  let anchor = START;
  for (let i = 0; i < base.length; i++) {
    const e = base[i]!;
    if (baseMatched[i]) anchor = i;
    else if (positional(e)) {
      const k = `${anchor}|${e.kind}`;
      const list = gaps.get(k);
      if (list) list.push(i);
      else gaps.set(k, [i]);
    }
  }
  // Unmatched side elements grouped the same way; a gap pairs only when it holds exactly one
  // unmatched element of the kind on each side (anything else is ambiguous: deletions and additions).
  const sideGaps = new Map<string, number[]>();
  anchor = START;
  for (let j = 0; j < side.length; j++) {
    const e = side[j]!;
    if (toBase[j]! >= 0) anchor = toBase[j]!;
    else if (positional(e)) {
      const k = `${anchor}|${e.kind}`;
      const list = sideGaps.get(k);
      if (list) list.push(j);
      else sideGaps.set(k, [j]);
    }
  }
  for (const [k, js] of sideGaps) {
    const is = gaps.get(k);
    if (js.length === 1 && is?.length === 1) toBase[js[0]!] = is[0]!;
  }
  return toBase;
}

/**
 * Merges an element present on some sides (indices -1 when absent) by the v0.1 rules 1–3 applied to
 * its text, with a line-level diff3 when both sides changed it.
 */
function resolveElement(a: Aligned, B: SideModule, O: SideModule, T: SideModule, deadline: number, prefer: 'ours' | 'theirs', markers: MarkerOptions, messages: string[]): Resolution {
  const { b, o, t } = a;
  // Element bodies compared in place (no subarrays: this runs once per element of the module).
  // Each side is compared with base first (and the answer kept for the semantic pass): an element
  // neither side changed costs two comparisons.
  if (o >= 0 && t >= 0) {
    if (b >= 0) {
      const oSame = sameBody(O, o, B, b);
      const tSame = sameBody(T, t, B, b);
      a.changedO = oSame ? 1 : 2;
      a.changedT = tSame ? 1 : 2;
      if (oSame && tSame) return prefer === 'ours' ? { kind: 'take', side: 'ours', index: o } : { kind: 'take', side: 'theirs', index: t };
      if (oSame) return { kind: 'take', side: 'theirs', index: t };
      if (tSame) return { kind: 'take', side: 'ours', index: o };
    }
    if (sameBody(O, o, T, t)) return prefer === 'ours' ? { kind: 'take', side: 'ours', index: o } : { kind: 'take', side: 'theirs', index: t };
    if (b < 0) return { kind: 'conflict', code: 'form/divergent-add', b, o, t };
    const merged = mergeInside(b, o, t, B, O, T, deadline, markers, messages);
    return merged ?? { kind: 'conflict', code: 'form/divergent-edit', b, o, t };
  }
  if (o >= 0) {
    if (b < 0) return { kind: 'take', side: 'ours', index: o };
    return sameBody(O, o, B, b) ? { kind: 'deleted' } : { kind: 'conflict', code: 'form/delete-modify', b, o, t };
  }
  if (t >= 0) {
    if (b < 0) return { kind: 'take', side: 'theirs', index: t };
    return sameBody(T, t, B, b) ? { kind: 'deleted' } : { kind: 'conflict', code: 'form/delete-modify', b, o, t };
  }
  return { kind: 'deleted' };
}

/** The three parts of an element's text: attached comments above, the form, a comment after it. */
function parts(s: SideModule, i: number): Uint8Array[] {
  const e = s.m.elements[i]!;
  const t = s.m.text;
  return [t.subarray(e.start, e.formStart), t.subarray(e.formStart, e.formEnd), t.subarray(e.formEnd, e.end)];
}

/** v0.1 rules 1–3 on one piece of text, then a clean line-level diff3, else undefined. */
function mergePart(b: Uint8Array, o: Uint8Array, t: Uint8Array, deadline: number): Uint8Array | undefined {
  if (sameBytes(o, t) || sameBytes(t, b)) return o;
  if (sameBytes(o, b)) return t;
  const r = diff3(b, o, t, deadline);
  if (r.conflicts > 0) return undefined;
  const lines: Uint8Array[] = [];
  for (const c of r.chunks) if (c.kind === 'ok') for (const line of c.lines) lines.push(line);
  return concatBytes(lines);
}

/** Canonical equality of two form texts (undefined when either does not canonicalize). */
function sameCanonical(a: Uint8Array, b: Uint8Array): boolean {
  try {
    return termsEqual(canonicalizeForm(readTerm(a)), canonicalizeForm(readTerm(b)));
  } catch (error) {
    if (error instanceof GcError) return false;
    throw error;
  }
}

/**
 * Merges the form part of an element both sides changed (issue #14): rules 1–3, then the tree
 * merge (tree.ts) when clean, then rule "formatting versus code" (one side's change has the same
 * canonical form as base: the other side's text), then a clean line-level diff3.
 * @returns clean bytes, or the tree merge with conflicts (`tree`), or undefined.
 */
function mergeFormPart(b: Uint8Array, o: Uint8Array, t: Uint8Array, deadline: number, messages: string[]): { bytes: Uint8Array } | { tree: TreeMerge } | undefined {
  if (sameBytes(o, t) || sameBytes(t, b)) return { bytes: o };
  if (sameBytes(o, b)) return { bytes: t };
  const tree = mergeFormTree(b, o, t, deadline);
  if (tree && tree.conflicts === 0) {
    for (const m of tree.renames) messages.push(m);
    return { bytes: readingOf(tree.segments, 'ours') };
  }
  if (sameCanonical(o, b)) return { bytes: t };
  if (sameCanonical(t, b)) return { bytes: o };
  const line = mergePart(b, o, t, deadline);
  if (line) return { bytes: line };
  return tree && tree.renames.length === 0 ? { tree } : undefined;
}

/**
 * Merges one element both sides changed: first part by part (attached comments, form by
 * {@link mergeFormPart}, trailing comment; so a comment edit on one side and a code edit on the
 * other combine), else a line-level diff3 of the whole text, else the tree merge's conflicts marked
 * inside the form. Kept only when the result (and, with conflicts, each side's reading of it) reads
 * back as exactly one element of the base element's kind (and def name).
 */
function mergeInside(b: number, o: number, t: number, B: SideModule, O: SideModule, T: SideModule, deadline: number, markers: MarkerOptions, messages: string[]): Resolution | undefined {
  const baseEl = B.m.elements[b]!;
  const candidates: (() => { bytes: Uint8Array; inner?: InnerConflicts } | undefined)[] = [];
  let treeConflict: (() => { bytes: Uint8Array; inner?: InnerConflicts } | undefined) | undefined;
  if (baseEl.kind === 'form' && O.m.elements[o]!.kind === 'form' && T.m.elements[t]!.kind === 'form') {
    candidates.push(() => {
      const pb = parts(B, b);
      const po = parts(O, o);
      const pt = parts(T, t);
      const pre = mergePart(pb[0]!, po[0]!, pt[0]!, deadline);
      const post = mergePart(pb[2]!, po[2]!, pt[2]!, deadline);
      if (!pre || !post) return undefined;
      const local: string[] = [];
      const form = mergeFormPart(pb[1]!, po[1]!, pt[1]!, deadline, local);
      if (!form) return undefined;
      if ('bytes' in form) {
        for (const m of local) messages.push(m);
        return { bytes: concatBytes([pre, form.bytes, post]) };
      }
      // Conflicts inside the form: tried after the whole-text line merge.
      treeConflict = () => {
        const segs = [pre, ...form.tree.segments, post];
        const r = renderTree(segs, markers);
        return { bytes: r.bytes, inner: { markerLines: r.markerLines, ours: readingOf(segs, 'ours'), theirs: readingOf(segs, 'theirs') } };
      };
      return undefined;
    });
  }
  candidates.push(() => {
    const m = mergePart(body(B, b), body(O, o), body(T, t), deadline);
    return m ? { bytes: m } : undefined;
  });
  candidates.push(() => treeConflict?.());
  const readsAsElement = (bytes: Uint8Array): TextElement | undefined => {
    let seg: SegmentedModule;
    try {
      seg = segmentModule(bytes, deadline, false);
    } catch (error) {
      if (error instanceof GcError && !isTimeout(error)) return undefined;
      throw error;
    }
    if (seg.elements.length !== 1) return undefined;
    const e = seg.elements[0]!;
    if (e.start !== 0 || e.end !== bytes.length || e.kind !== baseEl.kind || e.defName !== baseEl.defName) return undefined;
    return e;
  };
  for (const candidate of candidates) {
    const c = candidate();
    if (!c) continue;
    if (c.inner) {
      const eo = readsAsElement(c.inner.ours);
      const et = readsAsElement(c.inner.theirs);
      if (!eo || !et) continue;
      return { kind: 'merged', bytes: c.bytes, endsWithComment: false, inner: c.inner };
    }
    const e = readsAsElement(c.bytes);
    if (!e) continue;
    return { kind: 'merged', bytes: c.bytes, endsWithComment: e.endsWithComment };
  }
  return undefined;
}

/** One side's order of aligned ids: position of each id, successor and separators around it. */
class SideOrder {
  /** `pos[id]` = index of `id` on this side, -1 when absent. */
  private readonly pos: Int32Array;
  constructor(
    private readonly s: SideModule,
    readonly ids: readonly number[],
    idCount: number,
  ) {
    const pos = new Int32Array(idCount).fill(-1);
    for (let i = 0; i < ids.length; i++) pos[ids[i]!] = i;
    this.pos = pos;
  }
  /** True when `p` is immediately followed by `c` on this side. */
  adjacent(p: number, c: number): boolean {
    const i = this.pos[p]!;
    return i >= 0 && this.ids[i + 1] === c;
  }
  /** The separator after `id` on this side (undefined when absent or last). */
  sepAfter(id: number): { start: number; end: number } | undefined {
    const i = this.pos[id]!;
    return i >= 0 && i + 1 < this.ids.length ? separatorBefore(this.s.m, i + 1) : undefined;
  }
  /** The index of `id` on this side, -1 when absent. */
  indexOf(id: number): number {
    return this.pos[id]!;
  }
  /** The separator before `id` on this side (undefined when absent or first). */
  sepBefore(id: number): { start: number; end: number } | undefined {
    const i = this.pos[id]!;
    return i > 0 ? separatorBefore(this.s.m, i) : undefined;
  }
}

/** Which conflict side a verification render takes, or `markers` for the real result. */
type RenderMode = 'markers' | 'ours' | 'theirs';

/** An element the render emitted outside conflict markers: its body bytes and kind. */
interface RenderedElement {
  bytes: Uint8Array;
  kind: 'form' | 'comment';
}

interface Rendered {
  pieces: TextPiece[];
  /** The elements outside markers, in order (only when rendered with `collect`). */
  elements: RenderedElement[];
  conflicts: TextConflict[];
  /**
   * True when the cheap safety net proved that the text re-reads as exactly the decided elements:
   * every element is a verbatim element of a side or reads alone as one element of its kind, and
   * every boundary that is not one side's own (same side, consecutive, its separator) passes
   * {@link cleanBoundary}. False: not proven, the full re-read decides.
   */
  proven: boolean;
}

/**
 * Merges three versions of a module's text. See the file comment for the steps.
 * @param base,ours,theirs LF-normalized UTF-8 without BOM (`normalizeSide(...).text`).
 * @returns the result; `conflicts` is empty for a clean merge.
 * @throws GcError `core/parse/*` when a side does not read, `merge/text/unsafe` when the merge
 *   cannot be represented (incompatible reorders) or fails its re-read check;
 *   TimeoutError after `options.deadline`.
 */
export function mergeModuleText(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: TextMergeOptions): TextMergeResult {
  const deadline = options.deadline ?? Infinity;
  const reduce = options.reduce ?? 'auto';
  // Base is scanned once, for the reduced segmentation and, when it steps aside, the whole one.
  const read = scanFormBounds(base);
  if (reduce !== 'never') {
    const sides = segmentReduced(base, ours, theirs, read, deadline, reduce === 'always');
    if (sides) {
      let reduced: TextMergeResult | undefined;
      try {
        reduced = mergeSegmented({ side: 'base', m: sides.base }, { side: 'ours', m: sides.ours }, { side: 'theirs', m: sides.theirs }, options, true);
      } catch (error) {
        if (!(error instanceof NeedsWholeMerge)) throw error;
      }
      if (reduced) {
        if (options.checkSafetyNet) sameAsWholeMerge(reduced, base, ours, theirs, options);
        return reduced;
      }
    }
  }
  const B: SideModule = { side: 'base', m: segmentModule(base, deadline, true, read) };
  // Ours and theirs are read only where they differ from base (segmentLike; same result).
  const O: SideModule = { side: 'ours', m: segmentLike(ours, B.m, deadline) };
  const T: SideModule = { side: 'theirs', m: segmentLike(theirs, B.m, deadline) };
  return mergeSegmented(B, O, T, options, false);
}

/**
 * Thrown inside a reduced merge (segmentReduced) when a step would need the elements a run hides
 * (the most common separator, a full re-read) or meets a
 * case the reduction does not claim to reproduce (an element aligned across a run, an incompatible
 * reorder): the whole merge runs instead.
 */
class NeedsWholeMerge extends Error {}

/** Per element: how many runs (segmentReduced) come before it, so elements between the same two runs share a number. */
function windowNumbers(elements: readonly TextElement[]): Int32Array {
  const out = new Int32Array(elements.length);
  let runs = 0;
  for (let i = 0; i < elements.length; i++) {
    if (isRun(elements[i]!)) runs++;
    out[i] = runs;
  }
  return out;
}

/** Tests (`checkSafetyNet`): a reduced merge must give exactly what the whole merge gives. */
function sameAsWholeMerge(reduced: TextMergeResult, base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: TextMergeOptions): void {
  let whole: TextMergeResult | undefined;
  let error: unknown;
  try {
    whole = mergeModuleText(base, ours, theirs, { ...options, reduce: 'never' });
  } catch (e) {
    error = e;
  }
  const strip = (r: TextMergeResult): string =>
    JSON.stringify({ text: Buffer.from(r.text).toString('latin1'), conflicts: r.conflicts, messages: r.messages, merged: r.stats.merged, pieces: r.pieces.map((p) => [Buffer.from(p.bytes).toString('latin1'), p.from?.side]) });
  if (!whole) throw new Error(`the reduced merge succeeded, the whole merge failed: ${(error as Error).message}`);
  if (strip(whole) !== strip(reduced)) throw new Error(`the reduced merge differs from the whole merge:\n${strip(reduced)}\n${strip(whole)}`);
}

/**
 * Steps 2–6 of {@link mergeModuleText} on segmented sides. `reduced`: the sides come from
 * segmentReduced; a step that cannot be done on them throws NeedsWholeMerge.
 */
function mergeSegmented(B: SideModule, O: SideModule, T: SideModule, options: TextMergeOptions, reduced: boolean): TextMergeResult {
  const deadline = options.deadline ?? Infinity;
  checkDeadline(deadline);

  // Alignment: ids 0..nB-1 are base elements; unmatched side elements get new ids.
  const oToB = alignElements(B.m.elements, O.m.elements, B.m.defs);
  const tToB = alignElements(B.m.elements, T.m.elements, B.m.defs);
  // Plain index loops in this file's per-element paths: a driver process runs them once, in V8's
  // interpreter and baseline code, where `for…of` allocates an iterator result per item and
  // `map`/`forEach` cost a call per item.
  const nB = B.m.elements.length;
  const aligned: Aligned[] = [];
  for (let i = 0; i < nB; i++) aligned.push({ b: i, o: -1, t: -1, resolution: DELETED, changedO: 0, changedT: 0 });
  // A reduced merge (segmentReduced) reproduces the whole one when every element aligns within its
  // own window (the stretch between the same two runs): an element a side moved or added across a
  // run would weigh the run as one element in the order merge, where the whole merge counts its
  // elements.
  const wB = reduced ? windowNumbers(B.m.elements) : undefined;
  const wO = reduced ? windowNumbers(O.m.elements) : undefined;
  const wT = reduced ? windowNumbers(T.m.elements) : undefined;
  if (wB && wO && wT) {
    for (let j = 0; j < oToB.length; j++) if (oToB[j]! >= 0 && wO[j] !== wB[oToB[j]!]) throw new NeedsWholeMerge();
    for (let k = 0; k < tToB.length; k++) if (tToB[k]! >= 0 && wT[k] !== wB[tToB[k]!]) throw new NeedsWholeMerge();
  }
  const oursAdded = new Map<string, number>();
  const oEls = O.m.elements;
  const oIds: number[] = new Array<number>(oEls.length);
  for (let j = 0; j < oEls.length; j++) {
    const bi = oToB[j]!;
    if (bi >= 0) {
      aligned[bi]!.o = j;
      oIds[j] = bi;
      continue;
    }
    aligned.push({ b: -1, o: j, t: -1, resolution: DELETED, changedO: 0, changedT: 0 });
    oursAdded.set(oEls[j]!.key, aligned.length - 1);
    oIds[j] = aligned.length - 1;
  }
  const tEls = T.m.elements;
  const tIds: number[] = new Array<number>(tEls.length);
  for (let k = 0; k < tEls.length; k++) {
    const bi = tToB[k]!;
    if (bi >= 0) {
      aligned[bi]!.t = k;
      tIds[k] = bi;
      continue;
    }
    const key = tEls[k]!.key;
    const same = oursAdded.get(key);
    if (same !== undefined) {
      if (wO && wT && wO[aligned[same]!.o] !== wT[k]) throw new NeedsWholeMerge();
      aligned[same]!.t = k;
      oursAdded.delete(key);
      tIds[k] = same;
      continue;
    }
    aligned.push({ b: -1, o: -1, t: k, resolution: DELETED, changedO: 0, changedT: 0 });
    tIds[k] = aligned.length - 1;
  }
  checkDeadline(deadline);

  let merged = 0;
  const messages: string[] = [];
  const prefer = options.prefer ?? 'ours';
  for (let i = 0; i < aligned.length; i++) {
    if ((i & 255) === 0) checkDeadline(deadline);
    const a = aligned[i]!;
    a.resolution = resolveElement(a, B, O, T, deadline, prefer, options.markers, messages);
    if (a.resolution.kind === 'merged') merged++;
  }

  semanticPass(aligned, B, O, T, { oIds, tIds, windows: wB && wO && wT ? { b: wB, o: wO, t: wT } : undefined }, options.markers, messages, deadline);
  checkDeadline(deadline);

  const bIds: number[] = new Array<number>(nB);
  for (let i = 0; i < nB; i++) bIds[i] = i;
  const bOrder = new SideOrder(B, bIds, aligned.length);
  const oOrder = new SideOrder(O, oIds, aligned.length);
  const tOrder = new SideOrder(T, tIds, aligned.length);
  const order = mergeOrder(
    oIds,
    tIds,
    (id) => aligned[id]!.b,
    (id) => aligned[id]!.resolution.kind !== 'deleted',
    deadline,
  );
  if (order === undefined) {
    if (reduced) throw new NeedsWholeMerge();
    throw unsafe('the two sides reordered the top-level forms incompatibly');
  }
  checkDeadline(deadline);

  const ctx: RenderContext = { B, O, T, bOrder, oOrder, tOrder, aligned, markers: options.markers, prefer: options.prefer ?? 'ours', deadline, reduced };
  const real = render(ctx, order, 'markers', false);
  const text = real.pieces.length === 1 ? real.pieces[0]!.bytes : concatBytes(real.pieces.map((p) => p.bytes));
  checkDeadline(deadline);

  // Safety net: every reading of the result must give back exactly the decided forms. The render
  // proves it cheaply for runs copied from one side (see `Rendered.proven`); otherwise the reading
  // is re-read whole.
  let fullRereads = 0;
  const check = (mode: RenderMode, what: string, first: Rendered | undefined): void => {
    const r = first ?? render(ctx, order, mode, false);
    if (reduced) {
      // Runs hide the elements a full re-read compares: a reading not proven cheaply is left to the
      // whole merge (checkSafetyNet compares the two results instead).
      if (!r.proven) throw new NeedsWholeMerge();
      return;
    }
    if (r.proven && !options.checkSafetyNet) return;
    const full = render(ctx, order, mode, true);
    if (r.proven) {
      try {
        verifyElements(concatBytes(full.pieces.map((p) => p.bytes)), full.elements, what, deadline);
      } catch (error) {
        throw new Error(`the cheap safety net proved ${what}, the full re-read rejects it: ${(error as Error).message}`);
      }
      return;
    }
    fullRereads++;
    verifyElements(concatBytes(full.pieces.map((p) => p.bytes)), full.elements, what, deadline);
  };
  if (real.conflicts.length === 0) check('markers', 'result', real);
  else {
    check('ours', "ours' reading of the result", undefined);
    check('theirs', "theirs' reading of the result", undefined);
  }
  return {
    text,
    pieces: real.pieces,
    conflicts: real.conflicts,
    messages,
    stats: { elements: order.length, merged, conflicts: real.conflicts.length, fullRereads, reduced },
  };
}

interface RenderContext {
  B: SideModule;
  O: SideModule;
  T: SideModule;
  bOrder: SideOrder;
  oOrder: SideOrder;
  tOrder: SideOrder;
  aligned: Aligned[];
  markers: MarkerOptions;
  prefer: 'ours' | 'theirs';
  deadline: number;
  /** The sides are reduced (segmentReduced): throw NeedsWholeMerge where runs would be looked into. */
  reduced: boolean;
}

/**
 * Re-reads `text` and checks that it splits into exactly the decided elements: same kinds and same
 * body bytes (so no comment attached to a different form, no forms fused or split). Identical bytes
 * between identical element boundaries read as identical forms, which is stricter than equal
 * canonical forms.
 */
function verifyElements(text: Uint8Array, expected: readonly RenderedElement[], what: string, deadline: number): void {
  let seg: SegmentedModule;
  try {
    seg = segmentModule(text, deadline, false);
  } catch (error) {
    if (error instanceof GcError && !isTimeout(error)) throw unsafe(`${what} does not read back: ${error.message}`);
    throw error;
  }
  if (seg.elements.length !== expected.length) {
    throw unsafe(`${what} reads back as ${seg.elements.length} elements, expected ${expected.length}`);
  }
  for (let i = 0; i < expected.length; i++) {
    const e = seg.elements[i]!;
    const want = expected[i]!;
    // Same kind and same bytes at the same element boundaries: the form reads as the same term.
    if (e.kind !== want.kind || !sameBytes(text.subarray(e.start, e.end), want.bytes)) {
      throw unsafe(`${what}: element ${i} does not read back as the merged text`);
    }
  }
}

const BLANK_LINE = new Uint8Array([LF, LF]);

/**
 * The separator used between two elements that were neighbours nowhere and have no separator of
 * their own: the most frequent line-breaking separator of ours, else theirs, else base, else one
 * blank line (the canonical printer's layout, GENESIS_FACTS.md §1.5).
 */
function commonSeparator(sides: readonly SideModule[]): Uint8Array {
  for (const s of sides) {
    const counts = new Map<string, { n: number; bytes: Uint8Array }>();
    for (let i = 1; i < s.m.elements.length; i++) {
      const span = separatorBefore(s.m, i);
      const bytes = s.m.text.subarray(span.start, span.end);
      if (!hasLf(bytes)) continue;
      const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { n: 1, bytes });
    }
    let best: { n: number; bytes: Uint8Array } | undefined;
    for (const c of counts.values()) if (!best || c.n > best.n) best = c;
    if (best) return best.bytes;
  }
  return BLANK_LINE;
}

/** A separator the render emits: a span of a side's text, or bytes of its own. */
interface Sep {
  /** The side whose text `[start, end)` it is, or undefined for `bytes`. */
  side: Side | undefined;
  start: number;
  end: number;
  bytes: Uint8Array | undefined;
}

const EMPTY = new Uint8Array(0);

function ownSep(bytes: Uint8Array): Sep {
  return { side: undefined, start: 0, end: 0, bytes };
}

/** True when `a[as, ae)` and `b[bs, be)` hold the same bytes (compared in place). */
function sameSpan(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  const d = bs - as;
  for (let p = as; p < ae; p++) if (a[p] !== b[p + d]) return false;
  return true;
}

/** LF bytes in `t[start, end)`. */
function countLfIn(t: Uint8Array, start: number, end: number): number {
  // Separators are a few bytes: a plain loop beats a native search's call cost.
  let n = 0;
  for (let i = start; i < end; i++) if (t[i] === LF) n++;
  return n;
}

/** True when `t[start, end)` is only whitespace (the reader's: space, tab, LF, CR). */
function onlyWhitespace(t: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = t[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

const CLOSERS = new Set([0x29, 0x5d, 0x7d]);

/**
 * The cheap safety net's boundary rule: true when an element of kind `prevKind` (ending in a `;`
 * comment when `prevEndsWithComment`, last byte `prevLast`), then the whitespace `sep` (`lfs` line
 * breaks, `sepLength` bytes), then an element starting with byte `nextFirst`, re-read as those two
 * elements whatever came before and after: segments.ts joins a comment block to the comment or
 * form on the next line, and a `;` comment on a form's last line to that form; tokens need a
 * delimiter between them. False means "not proven" (the full re-read decides).
 * @internal exported for tests (module.ts is re-exported by the package entry).
 */
export function cleanBoundary(prevKind: 'form' | 'comment', prevEndsWithComment: boolean, prevLast: number, lfs: number, sepLength: number, nextFirst: number, sepFirst: number): boolean {
  // A `;` comment runs to the end of its line: the separator must start with that line break.
  if (prevKind === 'comment' || prevEndsWithComment) return sepFirst === LF && lfs >= (prevKind === 'comment' ? 2 : 1);
  if (nextFirst === SEMI) return lfs >= 1;
  return sepLength > 0 || CLOSERS.has(prevLast);
}

/** One emitted element, as the cheap safety net needs it. */
interface Emitted {
  kind: 'form' | 'comment';
  /** Verbatim: element `index` of `side`; otherwise `bytes`. */
  side: Side | undefined;
  index: number;
  bytes: Uint8Array | undefined;
  endsWithComment: boolean;
  first: number;
  last: number;
}

function render(ctx: RenderContext, order: readonly number[], mode: RenderMode, collect: boolean): Rendered {
  const { B, O, T, aligned } = ctx;
  const sides: Record<Side, SideModule> = { base: B, ours: O, theirs: T };
  const orders: Record<Side, SideOrder> = { base: ctx.bOrder, ours: ctx.oOrder, theirs: ctx.tOrder };
  const pieces: TextPiece[] = [];
  const elements: RenderedElement[] = [];
  const conflicts: TextConflict[] = [];
  // The cheap safety net (see verifyRendered): stays true while every boundary and every element
  // that is not a verbatim run of one side is proven to read back as decided.
  let proven = true;
  // Line numbers are only needed for conflicts: counted up to the current piece on demand.
  let lines = 1;
  let counted = 0;
  // Pieces are coalesced: a span of a side that continues the previous one extends it.
  let spanSide: Side | undefined;
  let spanStart = 0;
  let spanEnd = 0;
  const flushSpan = (): void => {
    if (spanSide === undefined) return;
    pieces.push({ bytes: sides[spanSide].m.text.subarray(spanStart, spanEnd), from: { side: spanSide, start: spanStart, end: spanEnd } });
    spanSide = undefined;
  };
  const currentLine = (): number => {
    flushSpan();
    for (; counted < pieces.length; counted++) {
      const b = pieces[counted]!.bytes;
      for (let i = b.indexOf(LF); i !== -1; i = b.indexOf(LF, i + 1)) lines++;
    }
    return lines;
  };
  const pushSpan = (side: Side, start: number, end: number): void => {
    if (start === end) return;
    if (spanSide === side && spanEnd === start) {
      spanEnd = end;
      return;
    }
    flushSpan();
    spanSide = side;
    spanStart = start;
    spanEnd = end;
  };
  const pushBytes = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    flushSpan();
    pieces.push({ bytes, from: undefined });
  };
  const pushSep = (s: Sep): void => {
    if (s.side !== undefined) pushSpan(s.side, s.start, s.end);
    else pushBytes(s.bytes!);
  };
  const sepText = (s: Sep): Uint8Array => (s.side !== undefined ? sides[s.side].m.text.subarray(s.start, s.end) : s.bytes!);
  const sepLfs = (s: Sep): number => (s.side !== undefined ? countLfIn(sides[s.side].m.text, s.start, s.end) : countLf(s.bytes!));
  const spanSep = (side: Side, span: { start: number; end: number }): Sep => ({ side, start: span.start, end: span.end, bytes: undefined });
  // Three-way value merge of one separator: ours unless only theirs changed it.
  const mergeSpans = (b: { start: number; end: number } | undefined, o: { start: number; end: number } | undefined, t: { start: number; end: number } | undefined): Sep => {
    if (o && t && sameSpan(O.m.text, o.start, o.end, T.m.text, t.start, t.end)) return ctx.prefer === 'theirs' ? spanSep('theirs', t) : spanSep('ours', o);
    if (o && t && b && sameSpan(O.m.text, o.start, o.end, B.m.text, b.start, b.end)) return spanSep('theirs', t);
    return o ? spanSep('ours', o) : t ? spanSep('theirs', t) : b ? spanSep('base', b) : ownSep(EMPTY);
  };
  const leadSpan = (s: SideModule): { start: number; end: number } | undefined =>
    s.m.elements.length > 0 ? separatorBefore(s.m, 0) : { start: 0, end: 0 };
  const trailSpan = (s: SideModule): { start: number; end: number } => ({ start: s.m.trailStart, end: s.m.text.length });

  // What each element renders as in this mode: a side's element (`side`, `index`), or `bytes`.
  interface Out {
    side: Side | undefined;
    index: number;
    bytes: Uint8Array | undefined;
    endsWithComment: boolean;
    conflict: TextConflictCode | undefined;
    detail?: string;
    /** Tree-merged element with inner conflicts: lines of its markers within the body. */
    markerLines?: number[] | undefined;
    src: Side;
    elKind: 'form' | 'comment';
    name: string | undefined;
  }
  const firstByte = (out: Out): number | undefined => {
    if (out.side === undefined) return out.bytes![0];
    const s = sides[out.side].m;
    return s.text[s.elements[out.index]!.start];
  };
  const elOf = (side: Side, i: number): TextElement => sides[side].m.elements[i]!;
  // Elements taken whole from a side (nearly all of them) fill two records in turn: the previous
  // element's record is still needed for the separator, nothing older is.
  const takeRecords: Out[] = [0, 1].map(() => ({ side: undefined, index: -1, bytes: undefined, endsWithComment: false, conflict: undefined, src: 'ours', elKind: 'form', name: undefined }));
  let flip = 0;
  const outOf = (id: number): Out | undefined => {
    const a = aligned[id]!;
    const r = a.resolution;
    if (r.kind === 'deleted') return undefined;
    if (r.kind === 'take') {
      const e = elOf(r.side, r.index);
      const o = takeRecords[(flip ^= 1)]!;
      o.side = r.side;
      o.index = r.index;
      o.bytes = undefined;
      o.endsWithComment = e.endsWithComment;
      o.conflict = undefined;
      o.detail = undefined;
      o.markerLines = undefined;
      o.src = r.side;
      o.elKind = e.kind;
      o.name = undefined;
      return o;
    }
    if (r.kind === 'merged') {
      const src = a.o >= 0 ? 'ours' : 'theirs';
      const e = elOf(src, src === 'ours' ? a.o : a.t);
      if (r.inner) {
        const bytes = mode === 'markers' ? r.bytes : r.inner[mode];
        return {
          side: undefined,
          index: -1,
          bytes,
          endsWithComment: mode === 'markers' ? false : (mode === 'ours' ? O : T).m.elements[mode === 'ours' ? a.o : a.t]!.endsWithComment,
          conflict: mode === 'markers' ? 'form/divergent-edit' : undefined,
          markerLines: mode === 'markers' ? r.inner.markerLines : undefined,
          detail: 'both sides changed the marked lines differently',
          src,
          elKind: e.kind,
          name: e.defName,
        };
      }
      return { side: undefined, index: -1, bytes: r.bytes, endsWithComment: r.endsWithComment, conflict: undefined, src, elKind: e.kind, name: undefined };
    }
    const any = r.o >= 0 ? elOf('ours', r.o) : elOf('theirs', r.t);
    const detail =
      r.detail ??
      (r.code === 'form/delete-modify'
        ? r.o < 0
          ? 'ours deleted it, theirs changed it'
          : 'theirs deleted it, ours changed it'
        : r.code === 'form/divergent-add'
          ? 'both sides added it with different text'
          : 'both sides changed it differently');
    if (mode !== 'markers') {
      const side: Side = mode;
      const i = side === 'ours' ? r.o : r.t;
      if (i < 0) return undefined;
      const e = elOf(side, i);
      return { side, index: i, bytes: undefined, endsWithComment: e.endsWithComment, conflict: undefined, src: side, elKind: e.kind, name: undefined };
    }
    const block = conflictBlock(r.o >= 0 ? body(O, r.o) : EMPTY, r.b >= 0 ? body(B, r.b) : EMPTY, r.t >= 0 ? body(T, r.t) : EMPTY, ctx.markers);
    return {
      side: undefined,
      index: -1,
      bytes: block.subarray(0, block.length - 1),
      endsWithComment: false,
      conflict: r.code,
      detail,
      src: r.o >= 0 ? 'ours' : 'theirs',
      elKind: any.kind,
      name: any.defName,
    };
  };

  let defaultSep: Uint8Array | undefined;
  const shared: Sep = { side: undefined, start: 0, end: 0, bytes: EMPTY };
  const sepFor = (p: number, c: number, pOut: Out, cOut: Out): Sep => {
    const ao = ctx.oOrder.adjacent(p, c);
    const at = ctx.tOrder.adjacent(p, c);
    const ab = ctx.bOrder.adjacent(p, c);
    let sep: Sep;
    if (ao && at) {
      // Both sides have them as neighbours (the common case): the separators compared in place,
      // ours unless only theirs changed it; one reused record, no spans allocated.
      const io = ctx.oOrder.indexOf(p);
      const it = ctx.tOrder.indexOf(p);
      const os = O.m.elements[io]!.end;
      const oe = O.m.elements[io + 1]!.start;
      const ts = T.m.elements[it]!.end;
      const te = T.m.elements[it + 1]!.start;
      let takeTheirs: boolean;
      if (sameSpan(O.m.text, os, oe, T.m.text, ts, te)) takeTheirs = ctx.prefer === 'theirs';
      else if (ab) {
        const ib = ctx.bOrder.indexOf(p);
        takeTheirs = sameSpan(O.m.text, os, oe, B.m.text, B.m.elements[ib]!.end, B.m.elements[ib + 1]!.start);
      } else takeTheirs = false;
      sep = shared;
      shared.side = takeTheirs ? 'theirs' : 'ours';
      shared.start = takeTheirs ? ts : os;
      shared.end = takeTheirs ? te : oe;
      shared.bytes = undefined;
    } else if (ao) sep = spanSep('ours', ctx.oOrder.sepAfter(p)!);
    else if (at) sep = spanSep('theirs', ctx.tOrder.sepAfter(p)!);
    else if (ab) sep = spanSep('base', ctx.bOrder.sepAfter(p)!);
    else {
      // Not neighbours anywhere: the blank lines the element had before it on its side, or after
      // its predecessor, or one line break.
      const before = orders[cOut.src].sepBefore(c);
      const after = orders[pOut.src].sepAfter(p);
      if (before && countLfIn(sides[cOut.src].m.text, before.start, before.end) > 0) sep = spanSep(cOut.src, before);
      else if (after && countLfIn(sides[pOut.src].m.text, after.start, after.end) > 0) sep = spanSep(pOut.src, after);
      else {
        if (ctx.reduced) throw new NeedsWholeMerge(); // the most common separator counts every element's
        sep = ownSep((defaultSep ??= commonSeparator([O, T, B])));
      }
    }
    // Keep the reading of the text: a free comment block stays free (a blank line after it), a
    // comment never swallows what follows, a comment never joins the previous line, markers start lines.
    const lfs = sepLfs(sep);
    if (pOut.elKind === 'comment' && !pOut.conflict && lfs < 2) sep = ownSep(BLANK_LINE);
    else if (lfs === 0 && (pOut.endsWithComment || pOut.conflict || cOut.conflict || firstByte(cOut) === SEMI)) sep = ownSep(NEWLINE);
    return sep;
  };

  // The element emitted last (outside markers), for the cheap safety net's boundary rule.
  // The element emitted last (outside markers), for the cheap safety net's boundary rule. Two
  // records reused in turn: this runs once per element.
  const blank = (): Emitted => ({ kind: 'form', side: undefined, index: -1, bytes: undefined, endsWithComment: false, first: -1, last: -1 });
  let last: Emitted | undefined;
  let spare: Emitted = blank();
  const emitted = (out: Out, sep: Sep | undefined): void => {
    const e = spare;
    if (out.side !== undefined) {
      const s = sides[out.side].m;
      const el = s.elements[out.index]!;
      e.kind = el.kind;
      e.side = out.side;
      e.index = out.index;
      e.bytes = undefined;
      e.endsWithComment = el.endsWithComment;
      e.first = s.text[el.start]!;
      e.last = s.text[el.end - 1]!;
    } else {
      const bytes = out.bytes!;
      // Not a verbatim element of a side: it must read as exactly one element of its kind on its own.
      let ewc = false;
      try {
        const seg = segmentModule(bytes, ctx.deadline, false);
        const only = seg.elements.length === 1 ? seg.elements[0]! : undefined;
        if (!only || only.start !== 0 || only.end !== bytes.length || only.kind !== out.elKind) proven = false;
        else ewc = only.endsWithComment;
      } catch (error) {
        if (!(error instanceof GcError) || isTimeout(error)) throw error;
        proven = false;
      }
      e.kind = out.elKind;
      e.side = undefined;
      e.index = -1;
      e.bytes = bytes;
      e.endsWithComment = ewc;
      e.first = bytes[0] ?? -1;
      e.last = bytes[bytes.length - 1] ?? -1;
    }
    if (last && sep && proven) {
      // A run of one side's consecutive elements with that side's separator re-reads as that side did.
      const verbatim =
        last.side !== undefined &&
        e.side === last.side &&
        e.index === last.index + 1 &&
        sep.side === e.side &&
        sep.start === sides[e.side].m.elements[e.index - 1]!.end &&
        sep.end === sides[e.side].m.elements[e.index]!.start;
      if (!verbatim) {
        const text = sepText(sep);
        proven = onlyWhitespace(text, 0, text.length) && cleanBoundary(last.kind, last.endsWithComment, last.last, countLf(text), text.length, e.first, text[0] ?? -1);
      }
    }
    spare = last ?? blank();
    last = e;
    if (collect) elements.push({ bytes: out.side !== undefined ? body(sides[out.side], out.index) : out.bytes!, kind: out.elKind });
  };

  const lead = mergeSpans(leadSpan(B), leadSpan(O), leadSpan(T));
  let prevId = -1;
  let prevOut: Out | undefined;
  for (let oi = 0; oi < order.length; oi++) {
    const id = order[oi]!;
    const out = outOf(id);
    if (!out) continue;
    let sep: Sep | undefined;
    if (prevOut) {
      sep = sepFor(prevId, id, prevOut, out);
      pushSep(sep);
    } else {
      pushSep(lead);
      const t = sepText(lead);
      if (!onlyWhitespace(t, 0, t.length)) proven = false;
    }
    if (out.conflict) {
      const at = currentLine();
      for (const l of out.markerLines ?? [0]) {
        conflicts.push({ code: out.conflict, kind: out.elKind, name: out.name, line: at + l, detail: out.detail ?? 'both sides changed it differently' });
      }
      last = undefined;
      proven = false; // markers: the readings of the result are checked instead
    } else emitted(out, sep);
    if (out.side !== undefined) {
      const el = sides[out.side].m.elements[out.index]!;
      pushSpan(out.side, el.start, el.end);
    } else pushBytes(out.bytes!);
    prevId = id;
    prevOut = out;
  }
  let trail = mergeSpans(trailSpan(B), trailSpan(O), trailSpan(T));
  if (prevOut && prevOut.conflict && sepLfs(trail) === 0) trail = ownSep(concatBytes([NEWLINE, sepText(trail)]));
  pushSep(trail);
  const tt = sepText(trail);
  if (!onlyWhitespace(tt, 0, tt.length)) proven = false;
  flushSpan();
  return { pieces, elements, conflicts, proven };
}

/** The element's term (undefined for comment blocks). */
function termOf(s: SideModule, i: number): Term | undefined {
  return s.m.elements[i]!.term;
}

/** `(def NAME …)` label of an element for messages. */
function label(s: SideModule, i: number): string {
  const n = s.m.elements[i]!.defName;
  return n !== undefined ? `(def ${n} …)` : `the form at byte ${s.m.elements[i]!.formStart}`;
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
    if (!changed(a, y)) continue;
    if (r.kind === 'merged' && !r.inner) {
      // Combined cleanly: X's renamed symbols are in it. Y's edit may still hold `n` (a reference
      // it added, renamed below with Y's other new references), unless Y's version itself uses
      // `m` or binds either name: then nothing can be renamed safely, and a clean result would
      // reference a name X removed.
      const yTerm = termOf(Y, yi);
      if (yTerm && (qualifiedCounts(yTerm).has(m) || bindsAny(yTerm, names)) && mentionsName(r.bytes, n)) {
        a.resolution = { kind: 'conflict', code: 'form/dangling-reference', b: a.b, o: a.o, t: a.t, detail: `${x} renamed ${n} to ${m}, which ${y}' ${label(Y, yi)} also uses or binds (the rename could not be carried over)` };
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
interface SideIds {
  oIds: number[];
  tIds: number[];
  windows: { b: Int32Array; o: Int32Array; t: Int32Array } | undefined;
}

/**
 * The semantic pass (semantic.ts): renames one side made are carried into the other side's edits
 * of the forms that mention the old name ({@link carryRename}) and into its new references;
 * references one side's changes add to a definition the other side removed become
 * `form/dangling-reference` conflicts. Mutates the resolutions (and, when a renamed definition is
 * paired with the other side's edit of it, the alignment and `ids`); notes go to `messages`.
 */
function semanticPass(aligned: Aligned[], B: SideModule, O: SideModule, T: SideModule, ids: SideIds, markers: MarkerOptions, messages: string[], deadline: number): void {
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
        renamedTo === undefined ? new Set<Aligned>() : carryRename(n, renamedTo, baseMentions.map(({ i }) => i), x, aligned, B, O, T, ids, changed, markers, messages, deadline);
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
