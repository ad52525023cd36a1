/**
 * Tree merge of one top-level form that both sides changed:
 * the three versions are read with the source span of every node (`readTermSpans`), children are
 * matched by kind and GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` rules 1–3 apply per child, recursively:
 *
 * - map entries by key (printed key term); an entry added on both sides with different values, or
 *   deleted on one side and changed on the other, conflicts at that entry's map;
 * - the vectors under `:exports`, `:imports` and `:caps` (the sets of the `::meta` form,
 *   GenesisCode `docs/spec/PATCH_SCHEMA.md` rewrite-imports/exports) as sets: both sides' additions and removals apply;
 * - other lists and vectors by a three-way alignment of their children (Myers on the children's
 *   printed terms): edits of different children combine; both sides inserting at the same place, or
 *   changing one run of children differently, conflicts at that list;
 * - atoms: the same leaf changed differently conflicts at that leaf.
 *
 * Output is built from the sides' original text: every node a side did not change keeps its bytes,
 * separators (whitespace and comments between children) merge by rules 1–3 (both changed: ours when
 * both are whitespace only, else a conflict). A conflict marks the smallest conflicting node,
 * widened to whole lines by `renderTree` (`tree-merge-output.ts`). The pieces a merged node is built
 * from are in `tree-merge-nodes.ts`; the scope safety of `fn` and `let` binders in `tree-binders.ts`.
 *
 * Safety net: the merged text is read back and must read as exactly the merged term (for a
 * conflict, ours' and theirs' readings as the terms with ours' / theirs' version of each conflict).
 * Recursion depth is bounded ({@link MAX_TREE_DEPTH}); deeper forms are left to the line merge.
 */
import { readTermSpans, type NodeSpan } from '../../coreform/read.js';
import { pair, sym, termsEqual, NIL, type Term } from '../../coreform/term.js';
import { compareUtf8 } from '../../util/bytes.js';
import { GcError } from '../../util/errors.js';
import { checkDeadline } from '../common/deadline.js';
import { myersDiff, sameBytes, type Hunk } from '../common/diff3.js';
import { addedBindings, editMentions, paramRenames, sameBinders, substitute, substituteText } from './tree-binders.js';
import {
  Bail,
  build,
  bytesOf,
  conflictOut,
  fixFirstSep,
  keyOf,
  MAX_TREE_DEPTH,
  mergeSep,
  placeAdditions,
  sepOf,
  take,
  type Addition,
  type Child,
  type Out,
  type Src,
} from './tree-merge-nodes.js';
import { readingOf, type TreeSegment } from './tree-merge-output.js';

// Re-exported for test/textmerge/tree.test.ts, which reads the tree merge and its rendering together.
export { readingOf, renderTree, type TreeConflict, type TreeSegment } from './tree-merge-output.js';

/** Map keys whose vector values are sets (GenesisCode `docs/spec/PATCH_SCHEMA.md` rewrite-imports / rewrite-exports). */
export const SET_KEYS: ReadonlySet<string> = new Set([':exports', ':imports', ':caps']);

/** The tree merge of one form: its segments and the terms ours' and theirs' readings must give. */
export interface TreeMerge {
  segments: TreeSegment[];
  /** Parameter renames carried from one side to the other (messages for stderr). */
  renames: string[];
  /** Number of conflicting nodes. */
  conflicts: number;
  oursTerm: Term;
  theirsTerm: Term;
}

const QUOTE = sym('quote');
const SPACE = new Uint8Array([0x20]);

class TreeMerger {
  constructor(
    private readonly B: Src,
    private readonly O: Src,
    private readonly T: Src,
    private readonly deadline: number,
  ) {}

  merge(b: NodeSpan, o: NodeSpan, t: NodeSpan, depth: number, setValued: boolean): Out {
    const { B, O, T } = this;
    const bb = bytesOf(B, b);
    const ob = bytesOf(O, o);
    const tb = bytesOf(T, t);
    if (sameBytes(ob, tb) || sameBytes(tb, bb)) return take(O, o);
    if (sameBytes(ob, bb)) return take(T, t);
    if (depth > MAX_TREE_DEPTH) throw new Bail('too deep');
    if ((depth & 15) === 0) checkDeadline(this.deadline);
    if (b.kind !== o.kind || b.kind !== t.kind || b.kind === 'atom') {
      // Same code on both sides (different layout): ours' text.
      if (termsEqual(o.term, t.term)) return take(O, o);
      return conflictOut(B, O, T, b, o, t);
    }
    if (b.kind === 'list') {
      const binder = this.binderRule(b, o, t);
      if (binder) return binder;
    }
    if (b.kind === 'quote') {
      const inner = this.merge(b.children[0]!, o.children[0]!, t.children[0]!, depth + 1, setValued);
      const prefix = O.text.subarray(o.start, o.children[0]!.start);
      return {
        segs: [prefix, ...inner.segs],
        o: pair(QUOTE, pair(inner.o, NIL)),
        t: pair(QUOTE, pair(inner.t, NIL)),
        conflicts: inner.conflicts,
      };
    }
    const children =
      b.kind === 'map' ? this.mergeMap(b, o, t, depth) : b.kind === 'vec' && setValued ? this.mergeSet(b, o, t) : this.mergeOrdered(b, o, t, depth);
    if (children === undefined) {
      if (termsEqual(o.term, t.term)) return take(O, o);
      return conflictOut(B, O, T, b, o, t);
    }
    // Closing trivia (after the last child, before the closer).
    const closeOf = (s: Src, n: NodeSpan): Uint8Array =>
      s.text.subarray(n.children.length > 0 ? n.children[n.children.length - 1]!.end : n.start + 1, n.closeStart);
    const close = mergeSep(closeOf(B, b), closeOf(O, o), closeOf(T, t));
    if (close === undefined) return conflictOut(B, O, T, b, o, t);
    const segs: TreeSegment[] = [O.text.subarray(o.start, o.start + 1)];
    let conflicts = 0;
    const oItems: Term[] = [];
    const tItems: Term[] = [];
    // A child that was first on its side and is not first here: ours' usual separator.
    const typical = o.children.length > 1 ? sepOf(O, o, 1) : t.children.length > 1 ? sepOf(T, t, 1) : SPACE;
    children.forEach((c, i) => {
      let sep = c.sep;
      if (i > 0 && sep.length === 0) sep = typical.length > 0 ? typical : SPACE;
      segs.push(sep, ...c.out.segs);
      conflicts += c.out.conflicts;
      oItems.push(c.out.o);
      tItems.push(c.out.t);
    });
    segs.push(close, O.text.subarray(o.closeStart, o.end));
    return { segs, o: build(b.kind, oItems), t: build(b.kind, tItems), conflicts };
  }

  /**
   * Scope safety for `(fn PARAMS …)` and `(let BINDINGS …)`: when one side changed the binders and
   * the other changed something else, merging the children independently could leave a use of a
   * name that is no longer bound, or bind a name the other side meant from outside. A pure
   * parameter rename (same arity, the renaming side's form is the base form with the names
   * substituted) is carried over to the other side's version; `let` bindings whose names stay
   * (only their expressions changed) merge as any other children; `let` bindings one side only added
   * (every base binding kept as it was, in order) merge with the other side's edits as any other
   * children do, unless a new name occurs in what the other side changed (the new binding would
   * capture it: {@link editMentions}); anything else conflicts at this form.
   * @returns the outcome, or undefined when the rule does not apply.
   */
  private binderRule(b: NodeSpan, o: NodeSpan, t: NodeSpan): Out | undefined {
    const head = b.children[0]?.term;
    if (!head || head.kind !== 'sym' || (head.name !== 'fn' && head.name !== 'let') || b.children.length < 2) return undefined;
    if (o.children.length < 2 || t.children.length < 2) return undefined;
    const { B, O, T } = this;
    const same = (x: NodeSpan, y: NodeSpan): boolean => termsEqual(x.term, y.term);
    const oBind = !same(b.children[1]!, o.children[1]!);
    const tBind = !same(b.children[1]!, t.children[1]!);
    if (!oBind && !tBind) return undefined;
    // `let` bindings whose names stay (the same names, in the same order, on every side that changed
    // them) changed only their expressions: nothing is bound or unbound, so the children merge as
    // any other sub-forms do (disjoint edits inside one binding combine; the same binding changed
    // differently conflicts there).
    if (
      head.name === 'let' &&
      sameBinders(b.children[1]!, oBind ? o.children[1]! : b.children[1]!) &&
      sameBinders(b.children[1]!, tBind ? t.children[1]! : b.children[1]!)
    ) {
      return undefined;
    }
    if (oBind && tBind) return same(o.children[1]!, t.children[1]!) ? undefined : conflictOut(B, O, T, b, o, t);
    const [renamer, other, otherSrc] = oBind ? [o, t, T] : [t, o, O];
    if (head.name === 'let') {
      const added = addedBindings(b.children[1]!, renamer.children[1]!);
      // Added bindings only: merge the children as usual unless one of the new names occurs in the
      // other side's edit (the new binding would capture it there).
      if (added && !editMentions(b, other, added)) return undefined;
    }
    if (head.name === 'fn') {
      const renames = paramRenames(b.children[1]!, renamer.children[1]!);
      if (renames && termsEqual(substitute(b.term, renames), renamer.term)) {
        const text = substituteText(otherSrc.text, other, renames);
        let term: Term;
        try {
          term = readTermSpans(text).term;
        } catch (error) {
          if (error instanceof GcError) throw new Bail('substitution does not read');
          throw error;
        }
        this.renames.push(
          `carried ${oBind ? 'ours' : 'theirs'}' rename of parameter ${[...renames].map(([a, z]) => `${a} → ${z}`).join(', ')} into ${oBind ? 'theirs' : 'ours'}' version`,
        );
        return { segs: [text], o: term, t: term, conflicts: 0 };
      }
    }
    return conflictOut(B, O, T, b, o, t);
  }

  /** Messages about parameter renames carried over. */
  readonly renames: string[] = [];

  /** Map entries by key; undefined when the entries conflict (the map is then the conflict). */
  private mergeMap(b: NodeSpan, o: NodeSpan, t: NodeSpan, depth: number): Child[] | undefined {
    const { B, O, T } = this;
    const entries = (n: NodeSpan): Map<string, number> => {
      const m = new Map<string, number>();
      for (let i = 0; i + 1 < n.children.length; i += 2) {
        const k = keyOf(n.children[i]!);
        if (m.has(k)) throw new Bail('repeated map key');
        m.set(k, i);
      }
      return m;
    };
    const be = entries(b);
    const oe = entries(o);
    const te = entries(t);
    const out: Child[] = [];
    const outKeys: string[] = [];
    const entryChildren = (side: Src, n: NodeSpan, i: number, sep: Uint8Array, value: Out): Child[] => [
      { sep, out: take(side, n.children[i]!) },
      { sep: sepOf(side, n, i + 1), out: value },
    ];
    for (const [k, oi] of oe) {
      const bi = be.get(k);
      const ti = te.get(k);
      const ov = o.children[oi + 1]!;
      if (ti === undefined) {
        // theirs deleted it (or never had it): deleted only when ours left it unchanged.
        if (bi === undefined) {
          out.push({ sep: sepOf(O, o, oi), out: take(O, o.children[oi]!) }, { sep: sepOf(O, o, oi + 1), out: take(O, ov) });
          outKeys.push(k);
        } else if (!sameBytes(bytesOf(O, ov), bytesOf(B, b.children[bi + 1]!)) && !termsEqual(ov.term, b.children[bi + 1]!.term)) return undefined;
        continue;
      }
      const tv = t.children[ti + 1]!;
      let value: Out;
      if (bi === undefined) {
        if (!termsEqual(ov.term, tv.term)) return undefined; // added on both sides with different values
        value = take(O, ov);
      } else {
        value = this.merge(b.children[bi + 1]!, ov, tv, depth + 1, SET_KEYS.has(k));
      }
      const sep = mergeSep(bi !== undefined ? sepOf(B, b, bi) : undefined, sepOf(O, o, oi), sepOf(T, t, ti));
      const inner = mergeSep(bi !== undefined ? sepOf(B, b, bi + 1) : undefined, sepOf(O, o, oi + 1), sepOf(T, t, ti + 1));
      if (sep === undefined || inner === undefined) return undefined;
      out.push({ sep, out: take(O, o.children[oi]!) }, { sep: inner, out: value });
      outKeys.push(k);
    }
    // theirs' additions (and entries ours deleted: deleted when theirs left them unchanged).
    const added: Addition[] = [];
    let prevKey: string | undefined;
    for (const [k, ti] of te) {
      const tv = t.children[ti + 1]!;
      if (!oe.has(k)) {
        const bi = be.get(k);
        if (bi === undefined) added.push({ key: k, after: prevKey, children: entryChildren(T, t, ti, sepOf(T, t, ti), take(T, tv)) });
        else if (!sameBytes(bytesOf(T, tv), bytesOf(B, b.children[bi + 1]!)) && !termsEqual(tv.term, b.children[bi + 1]!.term)) return undefined;
      }
      prevKey = k;
    }
    // Place each theirs addition after its predecessor on theirs' side when present in the result.
    const placed = placeAdditions(out, outKeys, added, 2, new Set([...oe.keys()].filter((k) => !be.has(k))));
    fixFirstSep(placed, O, o);
    return placed;
  }

  /** A set-valued vector: ours' items, minus those theirs removed, plus those theirs added. */
  private mergeSet(b: NodeSpan, o: NodeSpan, t: NodeSpan): Child[] | undefined {
    const { O, T } = this;
    const keys = (n: NodeSpan): Set<string> => new Set(n.children.map(keyOf));
    const bk = keys(b);
    const tk = keys(t);
    const out: Child[] = [];
    const outKeys: string[] = [];
    const seen = new Set<string>();
    o.children.forEach((c, i) => {
      const k = keyOf(c);
      if (bk.has(k) && !tk.has(k)) return; // theirs removed it
      if (seen.has(k)) return;
      seen.add(k);
      out.push({ sep: sepOf(O, o, i), out: take(O, c) });
      outKeys.push(k);
    });
    const ok = keys(o);
    const added: Addition[] = [];
    let prev: string | undefined;
    t.children.forEach((c, i) => {
      const k = keyOf(c);
      if (!bk.has(k) && !ok.has(k) && !seen.has(k)) {
        seen.add(k);
        added.push({ key: k, after: prev, children: [{ sep: sepOf(T, t, i), out: take(T, c) }] });
      }
      prev = k;
    });
    const sorted = (ks: readonly string[]): boolean => ks.every((k, i) => i === 0 || compareUtf8(ks[i - 1]!, k) < 0);
    let placed: Child[];
    if (sorted(outKeys) && sorted(t.children.map(keyOf))) {
      // Sets are kept sorted in their canonical representation (docs/reference/coreform.md §1.6,
      // "Metadata"): when both sides are sorted, theirs' additions go to their sorted place.
      const items = out.map((c, i) => ({ key: outKeys[i]!, child: c }));
      for (const a of added) {
        let pos = items.findIndex((x) => compareUtf8(a.key, x.key) < 0);
        if (pos === -1) pos = items.length;
        items.splice(pos, 0, { key: a.key, child: a.children[0]! });
      }
      placed = items.map((x) => x.child);
    } else placed = placeAdditions(out, outKeys, added, 1, new Set([...ok].filter((k) => !bk.has(k))));
    fixFirstSep(placed, O, o);
    return placed;
  }

  /** Lists and vectors: three-way alignment of the children; undefined on a conflict. */
  private mergeOrdered(b: NodeSpan, o: NodeSpan, t: NodeSpan, depth: number): Child[] | undefined {
    const { B, O, T } = this;
    const ids = new Map<string, number>();
    const intern = (n: NodeSpan): Int32Array => {
      const a = new Int32Array(n.children.length);
      n.children.forEach((c, i) => {
        const k = keyOf(c);
        let id = ids.get(k);
        if (id === undefined) ids.set(k, (id = ids.size));
        a[i] = id;
      });
      return a;
    };
    const bi = intern(b);
    const oh = myersDiff(bi, intern(o), this.deadline).map((h) => ({ ...h, side: 0 as const }));
    const th = myersDiff(bi, intern(t), this.deadline).map((h) => ({ ...h, side: 1 as const }));
    const all = [...oh, ...th].sort((p, q) => p.aStart - q.aStart || p.aEnd - q.aEnd || p.side - q.side);
    const out: Child[] = [];
    let basePos = 0;
    let oDelta = 0;
    let tDelta = 0;
    const stable = (from: number, to: number): boolean => {
      for (let k = from; k < to; k++) {
        const oi = k + oDelta;
        const ti = k + tDelta;
        const sep = mergeSep(sepOf(B, b, k), sepOf(O, o, oi), sepOf(T, t, ti));
        if (sep === undefined) return false;
        out.push({ sep, out: this.merge(b.children[k]!, o.children[oi]!, t.children[ti]!, depth + 1, false) });
      }
      return true;
    };
    for (const { hunks: group, start: gs, end: ge } of hunkGroups(all)) {
      if (!stable(basePos, gs)) return undefined;
      const os = group.filter((h) => h.side === 0);
      const ts = group.filter((h) => h.side === 1);
      const region = (hs: typeof group, delta: number): { start: number; end: number; delta: number } => {
        if (hs.length === 0) return { start: gs + delta, end: ge + delta, delta };
        const f = hs[0]!;
        const l = hs[hs.length - 1]!;
        return { start: f.bStart - (f.aStart - gs), end: l.bEnd + (ge - l.aEnd), delta: l.bEnd - l.aEnd };
      };
      const or = region(os, oDelta);
      const tr = region(ts, tDelta);
      oDelta = or.delta;
      tDelta = tr.delta;
      const pushSide = (s: Src, n: NodeSpan, r: { start: number; end: number }): void => {
        for (let k = r.start; k < r.end; k++) out.push({ sep: sepOf(s, n, k), out: take(s, n.children[k]!) });
      };
      const ol = or.end - or.start;
      const tl = tr.end - tr.start;
      const oneForOne = ol === ge - gs && tl === ge - gs && ol > 0;
      if (ts.length === 0 && !oneForOne) pushSide(O, o, or);
      else if (os.length === 0 && !oneForOne) pushSide(T, t, tr);
      else {
        const same =
          ol === tl && Array.from({ length: ol }, (_, k) => termsEqual(o.children[or.start + k]!.term, t.children[tr.start + k]!.term)).every(Boolean);
        if (same && !oneForOne) pushSide(O, o, or);
        else if (oneForOne) {
          // A run changed one for one (on one or both sides): merge the children pairwise, so the
          // other side's formatting of them is kept.
          for (let k = 0; k < ol; k++) {
            const sep = mergeSep(sepOf(B, b, gs + k), sepOf(O, o, or.start + k), sepOf(T, t, tr.start + k));
            if (sep === undefined) return undefined;
            out.push({ sep, out: this.merge(b.children[gs + k]!, o.children[or.start + k]!, t.children[tr.start + k]!, depth + 1, false) });
          }
        } else return undefined;
      }
      basePos = ge;
    }
    if (!stable(basePos, b.children.length)) return undefined;
    fixFirstSep(out, O, o);
    return out;
  }
}

/** A hunk of ours' (side 0) or theirs' (side 1) alignment with base. */
type SideHunk = Hunk & { side: 0 | 1 };

/**
 * Both sides' hunks (sorted by base position) grouped into the base regions they change together:
 * a hunk joins the group when it starts inside it, when it inserts at the group's end where an
 * insert of the group already is, or when the group is an insert at the place it inserts too.
 */
function hunkGroups(all: readonly SideHunk[]): { hunks: SideHunk[]; start: number; end: number }[] {
  const emptyInsert = (h: Hunk): boolean => h.aStart === h.aEnd;
  const groups: { hunks: SideHunk[]; start: number; end: number }[] = [];
  let i = 0;
  while (i < all.length) {
    const group = [all[i]!];
    let ge = all[i]!.aEnd;
    const gs = all[i]!.aStart;
    i++;
    while (i < all.length) {
      const h = all[i]!;
      const joins =
        h.aStart < ge ||
        (h.aStart === ge && emptyInsert(h) && group.some((g) => emptyInsert(g) && g.aStart === ge)) ||
        (gs === ge && h.aStart === gs && emptyInsert(h));
      if (!joins) break;
      group.push(h);
      if (h.aEnd > ge) ge = h.aEnd;
      i++;
    }
    groups.push({ hunks: group, start: gs, end: ge });
  }
  return groups;
}

/**
 * Tree-merges one form's text (the form alone, no surrounding comments).
 * @param base,ours,theirs the form's bytes on each side (LF-normalized UTF-8).
 * @param deadline ms timestamp (`performance.now()` clock).
 * @returns the merge, or undefined when a side does not read as one term, the nesting is deeper
 *   than {@link MAX_TREE_DEPTH}, a map literal repeats a key, or the result fails its read-back check.
 * @throws TimeoutError after `deadline`; GcError `merge/text/too-large` when an alignment exceeds
 *   its memory budget.
 */
export function mergeFormTree(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, deadline = Infinity): TreeMerge | undefined {
  let b: NodeSpan;
  let o: NodeSpan;
  let t: NodeSpan;
  try {
    b = readTermSpans(base).node;
    o = readTermSpans(ours).node;
    t = readTermSpans(theirs).node;
  } catch (error) {
    if (error instanceof GcError) return undefined;
    throw error;
  }
  let out: Out;
  const merger = new TreeMerger({ text: base }, { text: ours }, { text: theirs }, deadline);
  try {
    out = merger.merge(b, o, t, 0, false);
  } catch (error) {
    if (error instanceof Bail) return undefined;
    throw error;
  }
  const result: TreeMerge = { segments: out.segs, renames: merger.renames, conflicts: out.conflicts, oursTerm: out.o, theirsTerm: out.t };
  // Safety net: each reading reads back as the term it must be.
  for (const [side, want] of [
    ['ours', out.o],
    ['theirs', out.t],
  ] as const) {
    let got: Term;
    try {
      got = readTermSpans(readingOf(result.segments, side)).term;
    } catch (error) {
      if (error instanceof GcError) return undefined;
      throw error;
    }
    if (!termsEqual(got, want)) return undefined;
    if (out.conflicts === 0) break;
  }
  return result;
}
