/**
 * The merge's working records: a side's segmented module, and per aligned element its index on each
 * side and how it is resolved.
 */
import type { SegmentedModule } from '../segment/element.js';
import type { Side, TextConflictCode } from '../common/result.js';
import { sameRun } from '../segment/opaque-run.js';

/** How an aligned element is resolved: taken from a side, merged into new bytes, a conflict, or deleted. */
export type Resolution =
  | { kind: 'take'; side: Side; index: number }
  | { kind: 'merged'; bytes: Uint8Array; endsWithComment: boolean; inner?: InnerConflicts }
  | { kind: 'conflict'; code: TextConflictCode; b: number; o: number; t: number; detail?: string }
  | { kind: 'deleted' };

/** A tree-merged element with conflicts marked inside it (only the conflicting nodes' lines). */
export interface InnerConflicts {
  /** 0-based lines of each `<<<<<<<` marker within the element's bytes. */
  markerLines: number[];
  /** The element with every conflict resolved to ours' / theirs' version (for the safety net). */
  ours: Uint8Array;
  theirs: Uint8Array;
}

/** Per aligned element: its index on each side (-1 = absent) and how it is resolved. */
export interface Aligned {
  b: number;
  o: number;
  t: number;
  resolution: Resolution;
  /** Whether ours / theirs changed the element (0 not yet compared, 1 no, 2 yes; semanticPass). */
  changedO: number;
  changedT: number;
}

/** The resolution of an element no side keeps. */
export const DELETED: Resolution = { kind: 'deleted' };

/** A module split into elements, with the side it came from. */
export interface SideModule {
  side: Side;
  m: SegmentedModule;
}

/** True when element `i` of `x` and element `j` of `y` have the same body bytes (compared in place). */
export function sameBody(x: SideModule, i: number, y: SideModule, j: number): boolean {
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

/** The body bytes of element `i` of `s`. */
export function body(s: SideModule, i: number): Uint8Array {
  const e = s.m.elements[i]!;
  return s.m.text.subarray(e.start, e.end);
}
