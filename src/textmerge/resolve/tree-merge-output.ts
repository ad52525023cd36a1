/**
 * The output of a tree merge (`tree-merge.ts`): segments of bytes common to every reading and conflicting
 * nodes, one side's reading of them, and their rendering with conflict markers widened to whole lines.
 */
import { concatBytes, conflictBlock, type MarkerOptions } from '../common/diff3.js';

/** A conflicting node: the text of each side's version (empty when a side has none). */
export interface TreeConflict {
  ours: Uint8Array;
  base: Uint8Array;
  theirs: Uint8Array;
}

/** A piece of a tree-merged form: bytes common to every reading, or a conflict. */
export type TreeSegment = Uint8Array | TreeConflict;

/** The text of the segments with every conflict resolved to one side's version. */
export function readingOf(segments: readonly TreeSegment[], side: 'ours' | 'theirs'): Uint8Array {
  return concatBytes(segments.map((s) => (s instanceof Uint8Array ? s : s[side])));
}

const LF = 0x0a;

/**
 * Renders tree-merge segments with conflict markers, each conflict widened to whole lines: the text
 * from the start of the conflict's first line to the end of its last line goes into every section,
 * and conflicts sharing a line form one block.
 * @returns the bytes, and the 0-based line (within the text) of each block's `<<<<<<<` marker.
 */
export function renderTree(segments: readonly TreeSegment[], markers: MarkerOptions): { bytes: Uint8Array; markerLines: number[] } {
  const parts: Uint8Array[] = [];
  const markerLines: number[] = [];
  let line = 0;
  let i = 0;
  // Pending plain text since the last LF (not yet emitted).
  let pending: Uint8Array[] = [];
  const emit = (b: Uint8Array): void => {
    parts.push(b);
    for (let k = b.indexOf(LF); k !== -1; k = b.indexOf(LF, k + 1)) line++;
  };
  while (i < segments.length) {
    const s = segments[i]!;
    if (s instanceof Uint8Array) {
      const last = s.lastIndexOf(LF);
      if (last === -1) pending.push(s);
      else {
        emit(concatBytes([...pending, s.subarray(0, last + 1)]));
        pending = [s.subarray(last + 1)];
      }
      i++;
      continue;
    }
    // A conflict: collect ours/base/theirs from the line start until an LF in plain text.
    const prefix = concatBytes(pending);
    pending = [];
    const o: Uint8Array[] = [prefix];
    const b: Uint8Array[] = [prefix];
    const t: Uint8Array[] = [prefix];
    let rest: Uint8Array | undefined;
    while (i < segments.length) {
      const c = segments[i]!;
      i++;
      if (c instanceof Uint8Array) {
        const lf = c.indexOf(LF);
        const head = lf === -1 ? c : c.subarray(0, lf + 1);
        o.push(head);
        b.push(head);
        t.push(head);
        if (lf !== -1) {
          rest = c.subarray(lf + 1);
          break;
        }
      } else {
        o.push(c.ours);
        b.push(c.base);
        t.push(c.theirs);
      }
    }
    markerLines.push(line);
    const block = conflictBlock(concatBytes(o), concatBytes(b), concatBytes(t), markers);
    if (rest === undefined) {
      // The conflict runs to the end of the text: no LF after the closing marker.
      emit(block.subarray(0, block.length - 1));
      break;
    }
    emit(block);
    const last = rest.lastIndexOf(LF);
    if (last === -1) pending = [rest];
    else {
      emit(rest.subarray(0, last + 1));
      pending = [rest.subarray(last + 1)];
    }
  }
  if (pending.length > 0) parts.push(concatBytes(pending));
  return { bytes: concatBytes(parts), markerLines };
}
