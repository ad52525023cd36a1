/**
 * Clean cuts in a module's text: the places after a form's line where a fresh segmentation gives
 * exactly the elements a whole-text one gives, and the binary searches over form bounds they use.
 */
import { isSpace } from './keys.js';

const LF = 0x0a;
const SEMI = 0x3b;

/**
 * A clean cut after a form: the end of the form's element (the form, or a comment on its last line)
 * and the first token after that line. Segmenting from `token` on, fresh, gives exactly the
 * elements a whole-text segmentation gives there: the line break means no comment after it joins
 * the form, and nothing is pending.
 */
export interface Cut {
  /** Index of the form the cut follows (its element ends at `elemEnd`). */
  form: number;
  elemEnd: number;
  /** The first token after the form's line, or the text's length when none follows. */
  token: number;
  /**
   * A line break follows the form's element: a window may start at `token` (false only at the end
   * of a text without a final line break, where a side could continue the form's line).
   */
  clean: boolean;
}

/**
 * The cut after form `f` of `text` (bounds as {@link scanFormBounds}), or undefined when the next
 * token follows on the form's own line (no cut there).
 */
export function cutAfter(text: Uint8Array, bounds: ArrayLike<number>, f: number): Cut | undefined {
  const n = text.length;
  let q = bounds[2 * f + 1]!;
  while (q < n && (text[q] === 0x20 || text[q] === 0x09 || text[q] === 0x0d)) q++;
  let elemEnd = bounds[2 * f + 1]!;
  if (q < n && text[q] === SEMI) {
    q = text.indexOf(LF, q);
    if (q === -1) q = n;
    elemEnd = q;
  }
  if (q < n && text[q] !== LF) return undefined;
  const clean = q < n;
  while (q < n && isSpace(text[q])) q++;
  return { form: f, elemEnd, token: q, clean };
}

/** Index of the first form of `bounds` that ends after `offset` (the number of forms ending at or before it). */
export function formsEndingBy(bounds: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = bounds.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[2 * mid + 1]! <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first form of `bounds` that starts at or after `offset`. */
export function formsStartingBefore(bounds: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = bounds.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[2 * mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
