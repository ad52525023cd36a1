/**
 * The reduced merge's rules: the merge of segmentReduced's sides (runs of unchanged elements kept
 * whole) gives the whole merge's result, or hands over to the whole merge with {@link NeedsWholeMerge}.
 *
 * Steps 2–5 of the merge usually run on fewer elements: when the two sides' changes are a few
 * windows of a large module, segment-reduced.ts keeps every stretch of base neither side changed as
 * one opaque run element, and the result is the same (a step that would need to look inside a run
 * hands over to the whole merge; see docs/driver.md "Large modules").
 */
import type { TextElement } from './element.js';
import { isRun } from './opaque-run.js';

/**
 * Thrown inside a reduced merge (segmentReduced) when a step would need the elements a run hides
 * (the most common separator, a full re-read) or meets a
 * case the reduction does not claim to reproduce (an element aligned across a run, an incompatible
 * reorder): the whole merge runs instead.
 */
export class NeedsWholeMerge extends Error {}

/** Per element: how many runs (segmentReduced) come before it, so elements between the same two runs share a number. */
export function windowNumbers(elements: readonly TextElement[]): Int32Array {
  const out = new Int32Array(elements.length);
  let runs = 0;
  for (let i = 0; i < elements.length; i++) {
    if (isRun(elements[i]!)) runs++;
    out[i] = runs;
  }
  return out;
}

/** Each side's window numbers ({@link windowNumbers}) in a reduced merge. */
export interface Windows {
  b: Int32Array;
  o: Int32Array;
  t: Int32Array;
}
