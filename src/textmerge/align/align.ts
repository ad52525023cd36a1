/**
 * Step 2 of the text merge, alignment: `(def NAME …)` by NAME, other forms and comment blocks by
 * content, then unmatched non-def forms / comment blocks by position (same preceding anchor); and
 * the aligned elements of three sides with each side's order as aligned ids.
 */
import { DELETED, type Aligned, type SideModule } from './merge-records.js';
import type { TextElement } from '../segment/element.js';
import { ByteKeyTable } from '../segment/keys.js';
import { NeedsWholeMerge, windowNumbers, type Windows } from '../segment/reduced-merge-rules.js';

const START = -1;

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
 * The three sides aligned: `aligned` holds base's elements first (ids 0..nB-1, in base's order),
 * then ours' unmatched elements, then theirs' (an element both added with the same key is one id);
 * `oIds` / `tIds` give each side's elements as ids, in the side's order. `reduced`: the sides come
 * from segmentReduced; `windows` are then their window numbers, and an element aligned across a run
 * throws NeedsWholeMerge (the reduction reproduces the whole merge only when every element aligns
 * within its own window).
 */
export function alignSides(
  B: SideModule,
  O: SideModule,
  T: SideModule,
  reduced: boolean,
): { aligned: Aligned[]; oIds: number[]; tIds: number[]; windows: Windows | undefined } {
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
  // An element matched to a base element takes that element's row.
  const onBaseRow = (side: 'o' | 't', toB: Int32Array, ids: number[], j: number): boolean => {
    const bi = toB[j]!;
    if (bi < 0) return false;
    aligned[bi]![side] = j;
    ids[j] = bi;
    return true;
  };
  for (let j = 0; j < oEls.length; j++) {
    if (onBaseRow('o', oToB, oIds, j)) continue;
    aligned.push({ b: -1, o: j, t: -1, resolution: DELETED, changedO: 0, changedT: 0 });
    oursAdded.set(oEls[j]!.key, aligned.length - 1);
    oIds[j] = aligned.length - 1;
  }
  const tEls = T.m.elements;
  const tIds: number[] = new Array<number>(tEls.length);
  for (let k = 0; k < tEls.length; k++) {
    if (onBaseRow('t', tToB, tIds, k)) continue;
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
  return { aligned, oIds, tIds, windows: wB && wO && wT ? { b: wB, o: wO, t: wT } : undefined };
}
