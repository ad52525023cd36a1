/**
 * Three-way merge of an order: the sequence of top-level elements of a module (text.ts) or of the
 * `[[modules]]` of a manifest (manifest.ts). Implements issue #3 "Merge the sequence three-way
 * (an addition lands next to its neighbours on its own side; a reorder on one side is kept)".
 *
 * Items are small non-negative integer ids shared by the sides (an item present on two sides has
 * the same id there). Base positions tell which items a side moved: the items outside one longest
 * increasing run of base positions, in that side's order.
 */
import { checkDeadline } from './deadline.js';

const START = -1;
const END = -2;

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
  const inO = new Set(oIds);
  const inT = new Set(tIds);
  const oPos = new Map<number, number>();
  oIds.forEach((id, i) => oPos.set(id, i));
  const tPos = new Map<number, number>();
  tIds.forEach((id, i) => tPos.set(id, i));
  const predIn = (ids: readonly number[], pos: Map<number, number>, other: Set<number>, id: number): number => {
    for (let i = pos.get(id)! - 1; i >= 0; i--) if (other.has(ids[i]!)) return ids[i]!;
    return START;
  };
  for (const id of movedO) {
    if (movedT.has(id) && predIn(oIds, oPos, inT, id) !== predIn(tIds, tPos, inO, id)) return undefined;
  }
  const first = buildOrder(oIds, tIds, movedO, movedT, inT, survives, false, deadline);
  if (orderKeepsSides(first, oPos, tPos, movedO, movedT, baseIndexOf, deadline)) return first;
  const second = buildOrder(tIds, oIds, movedT, movedO, inO, survives, true, deadline);
  if (orderKeepsSides(second, oPos, tPos, movedO, movedT, baseIndexOf, deadline)) return second;
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
  inS: Set<number>,
  survives: (id: number) => boolean,
  beforeOthers: boolean,
  deadline: number,
): number[] {
  const next = new Map<number, number>();
  const placed = new Set<number>();
  let last = START;
  next.set(START, END);
  for (const id of primary) {
    if (!survives(id) || (movedS.has(id) && !movedP.has(id))) continue;
    next.set(last, id);
    next.set(id, END);
    placed.add(id);
    last = id;
  }
  let anchor = START;
  let n = 0;
  for (const id of secondary) {
    if ((++n & 1023) === 0) checkDeadline(deadline);
    if (placed.has(id)) {
      anchor = id;
      continue;
    }
    if (!survives(id)) continue;
    let pos = anchor;
    if (!beforeOthers) {
      for (;;) {
        const nx = next.get(pos)!;
        if (nx === END || inS.has(nx)) break;
        pos = nx;
      }
    }
    next.set(id, next.get(pos)!);
    next.set(pos, id);
    placed.add(id);
    anchor = id;
  }
  const order: number[] = [];
  for (let id = next.get(START)!; id !== END; id = next.get(id)!) order.push(id);
  return order;
}

/**
 * True when `order` keeps, for every pair of items on all three sides where one is moved by a side,
 * the pair's order as ours and theirs agree on it, or as the side that changed it has it. (Pairs of
 * items no side moved keep base order in every construction.)
 */
function orderKeepsSides(
  order: readonly number[],
  oPos: Map<number, number>,
  tPos: Map<number, number>,
  movedO: Set<number>,
  movedT: Set<number>,
  baseIndexOf: (id: number) => number,
  deadline: number,
): boolean {
  const rPos = new Map<number, number>();
  order.forEach((id, i) => rPos.set(id, i));
  const everywhere = order.filter((id) => baseIndexOf(id) >= 0 && oPos.has(id) && tPos.has(id));
  for (const x of new Set([...movedO, ...movedT])) {
    if (!rPos.has(x) || !oPos.has(x) || !tPos.has(x)) continue;
    checkDeadline(deadline);
    for (const y of everywhere) {
      if (y === x) continue;
      const b = baseIndexOf(x) < baseIndexOf(y);
      const o = oPos.get(x)! < oPos.get(y)!;
      const t = tPos.get(x)! < tPos.get(y)!;
      const want = o === b ? t : o;
      if (want !== rPos.get(x)! < rPos.get(y)!) return false;
    }
  }
  return true;
}
