/**
 * Three-way merge of an order: the sequence of top-level elements of a module (module.ts) or of the
 * `[[modules]]` of a manifest (manifest.ts): an addition lands next to its neighbours on its own
 * side; a reorder on one side is kept.
 *
 * Items are small non-negative integer ids shared by the sides (an item present on two sides has
 * the same id there). Base positions tell which items a side moved: the items outside one longest
 * increasing run of base positions, in that side's order.
 */
import { checkDeadline } from '../common/deadline.js';

const START = -1;
/** buildOrder's linked-list slots: slot(END) = 0, slot(START) = 1, slot(id) = id + 2. */
const END_SLOT = 0;
const START_SLOT = 1;

/** Indices (into `seq`) of one longest strictly increasing subsequence of `seq`. */
export function longestIncreasing(seq: readonly number[]): Set<number> {
  const tails: number[] = [];
  const tailIdx: number[] = [];
  const prev = new Int32Array(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    const v = seq[i]!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = v;
    tailIdx[lo] = i;
    prev[i] = lo > 0 ? tailIdx[lo - 1]! : -1;
  }
  const out = new Set<number>();
  let k = tails.length > 0 ? tailIdx[tails.length - 1]! : -1;
  while (k >= 0) {
    out.add(k);
    k = prev[k]!;
  }
  return out;
}

/** The ids of `ids` that are in base (`baseIndexOf(id) >= 0`) but out of base order on this side. */
export function movedItems(ids: readonly number[], baseIndexOf: (id: number) => number): Set<number> {
  // Common case first: the side kept base's order (no item moved), one pass and no allocation.
  let last = -1;
  let increasing = true;
  for (let i = 0; i < ids.length; i++) {
    const b = baseIndexOf(ids[i]!);
    if (b < 0) continue;
    if (b <= last) {
      increasing = false;
      break;
    }
    last = b;
  }
  if (increasing) return new Set<number>();
  const common = ids.filter((id) => baseIndexOf(id) >= 0);
  const keep = longestIncreasing(common.map(baseIndexOf));
  const out = new Set<number>();
  common.forEach((id, i) => {
    if (!keep.has(i)) out.add(id);
  });
  return out;
}

/**
 * Merges the order of ours (`oIds`) and theirs (`tIds`).
 *
 * Construction: ours' order of the surviving items, except items only theirs moved; then, walking
 * theirs' order, every surviving item not yet placed (theirs' additions, theirs' moves, items ours
 * deleted but that survive as conflicts) goes right after its nearest already-placed predecessor on
 * theirs' side, past any run of items theirs does not have (so at one spot ours' additions come
 * first, then theirs'). If that order breaks a relative order one side changed (or that both sides
 * kept), the same construction is tried from theirs' order (ours' additions still first).
 * @param baseIndexOf position of an item in base, -1 when it is not in base.
 * @param survives false for items the merge deletes.
 * @param deadline ms timestamp (`performance.now()` clock).
 * @returns the merged order, or undefined when the sides' reorders are incompatible: both moved one
 *   item to different places, or no construction keeps every pairwise order the sides agree on or
 *   one side changed.
 * @throws TimeoutError after the deadline.
 */
export function mergeOrder(
  oIds: readonly number[],
  tIds: readonly number[],
  baseIndexOf: (id: number) => number,
  survives: (id: number) => boolean,
  deadline = Infinity,
): number[] | undefined {
  const movedO = movedItems(oIds, baseIndexOf);
  const movedT = movedItems(tIds, baseIndexOf);
  checkDeadline(deadline);
  // Ids are small non-negative integers: flags and positions live in typed arrays indexed by id.
  // Plain index loops here and below: a driver process runs this once, in V8's interpreter and
  // baseline code, where `for…of` allocates an iterator result per item and `forEach` a call.
  let size = 0;
  for (let i = 0; i < oIds.length; i++) if (oIds[i]! >= size) size = oIds[i]! + 1;
  for (let i = 0; i < tIds.length; i++) if (tIds[i]! >= size) size = tIds[i]! + 1;
  const inO = new Uint8Array(size);
  const inT = new Uint8Array(size);
  const oPos = new Int32Array(size).fill(-1);
  const tPos = new Int32Array(size).fill(-1);
  for (let i = 0; i < oIds.length; i++) {
    inO[oIds[i]!] = 1;
    oPos[oIds[i]!] = i;
  }
  for (let i = 0; i < tIds.length; i++) {
    inT[tIds[i]!] = 1;
    tPos[tIds[i]!] = i;
  }
  const predIn = (ids: readonly number[], pos: Int32Array, other: Uint8Array, id: number): number => {
    for (let i = pos[id]! - 1; i >= 0; i--) if (other[ids[i]!]) return ids[i]!;
    return START;
  };
  for (const id of movedO) {
    if (movedT.has(id) && predIn(oIds, oPos, inT, id) !== predIn(tIds, tPos, inO, id)) return undefined;
  }
  const first = buildOrder(oIds, tIds, movedO, movedT, inT, survives, false, size, deadline);
  if (orderKeepsSides(first, oPos, tPos, movedO, movedT, baseIndexOf, size, deadline)) return first;
  const second = buildOrder(tIds, oIds, movedT, movedO, inO, survives, true, size, deadline);
  if (orderKeepsSides(second, oPos, tPos, movedO, movedT, baseIndexOf, size, deadline)) return second;
  return undefined;
}

/**
 * One construction of {@link mergeOrder}: `primary`'s order, then `secondary`'s unplaced items after
 * their nearest placed predecessor on the secondary side; `beforeOthers` places them right after it
 * (ahead of primary-only items), otherwise past the run of items `secondary` does not have.
 */
function buildOrder(
  primary: readonly number[],
  secondary: readonly number[],
  movedP: Set<number>,
  movedS: Set<number>,
  inS: Uint8Array,
  survives: (id: number) => boolean,
  beforeOthers: boolean,
  size: number,
  deadline: number,
): number[] {
  // A linked list over ids: `next[slot(id)]` is the slot of the id after it; slot(END) = 0,
  // slot(START) = 1, slot(id) = id + 2.
  // (Slots spelled out as `id + 2`, 0 and 1: this runs once per item, uncompiled.)
  const next = new Int32Array(size + 2);
  const placed = new Uint8Array(size);
  let last = START_SLOT;
  next[START_SLOT] = END_SLOT;
  let count = 0;
  const anyMoved = movedS.size > 0;
  for (let i = 0; i < primary.length; i++) {
    const id = primary[i]!;
    if (!survives(id) || (anyMoved && movedS.has(id) && !movedP.has(id))) continue;
    next[last] = id + 2;
    next[id + 2] = END_SLOT;
    placed[id] = 1;
    last = id + 2;
    count++;
  }
  let anchor = START_SLOT;
  for (let i = 0; i < secondary.length; i++) {
    if ((i & 1023) === 1023) checkDeadline(deadline);
    const id = secondary[i]!;
    if (placed[id]) {
      anchor = id + 2;
      continue;
    }
    if (!survives(id)) continue;
    let pos = anchor;
    if (!beforeOthers) {
      for (;;) {
        const nx = next[pos]!;
        if (nx === END_SLOT || inS[nx - 2]) break;
        pos = nx;
      }
    }
    next[id + 2] = next[pos]!;
    next[pos] = id + 2;
    placed[id] = 1;
    anchor = id + 2;
    count++;
  }
  const order: number[] = new Array<number>(count);
  let k = 0;
  for (let x = next[START_SLOT]!; x !== END_SLOT; x = next[x]!) order[k++] = x - 2;
  return order;
}

/**
 * True when `order` keeps, for every pair of items on all three sides where one is moved by a side,
 * the pair's order as ours and theirs agree on it, or as the side that changed it has it. (Pairs of
 * items no side moved keep base order in every construction.)
 */
function orderKeepsSides(
  order: readonly number[],
  oPos: Int32Array,
  tPos: Int32Array,
  movedO: Set<number>,
  movedT: Set<number>,
  baseIndexOf: (id: number) => number,
  size: number,
  deadline: number,
): boolean {
  if (movedO.size === 0 && movedT.size === 0) return true;
  const rPos = new Int32Array(size).fill(-1);
  for (let i = 0; i < order.length; i++) rPos[order[i]!] = i;
  const everywhere = order.filter((id) => baseIndexOf(id) >= 0 && oPos[id]! >= 0 && tPos[id]! >= 0);
  for (const x of new Set([...movedO, ...movedT])) {
    if (rPos[x]! < 0 || oPos[x]! < 0 || tPos[x]! < 0) continue;
    checkDeadline(deadline);
    for (const y of everywhere) {
      if (y === x) continue;
      const b = baseIndexOf(x) < baseIndexOf(y);
      const o = oPos[x]! < oPos[y]!;
      const t = tPos[x]! < tPos[y]!;
      const want = o === b ? t : o;
      if (want !== rPos[x]! < rPos[y]!) return false;
    }
  }
  return true;
}
