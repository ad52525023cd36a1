/**
 * Positions: (1-based line, 0-based UTF-16 character) ↔ UTF-16 offsets of one source string, and
 * UTF-16 → UTF-8 byte offsets. Implements weavatrix.edit-plan.v1 "Position rules".
 *
 * Only `\n` ends a line; a `\r` before it, a lone `\r`, U+2028/U+2029/U+0085 are line content.
 * Line count = number of `\n` + 1, so a trailing `\n` creates a final empty line whose character 0
 * is valid, and the empty source has one empty line. The `\n` itself is not addressable from its
 * line (character = length + 1 is an error, never "the next line"). Nothing is clamped.
 */
import type { GcError } from '../util/errors.js';
import { editError, type EditErrorIndices } from './errors.js';
import { utf8LengthOfRange } from './unicode.js';

/** Result of {@link LineIndex.tryResolve} for a position past its line or past the last line. */
export const OUT_OF_RANGE = -1;
/** Result of {@link LineIndex.tryResolve} for a position between the two halves of a surrogate pair. */
export const SPLITS_SURROGATE_PAIR = -2;

/**
 * The start offsets of every line of a source, built once in O(n) (one `indexOf('\n')` sweep).
 * Offsets and characters are UTF-16 code units; lines are 1-based.
 */
export class LineIndex {
  /** `lineStarts[k]` = UTF-16 offset where line k+1 starts. */
  readonly lineStarts: Uint32Array;

  /** @param source the whole source text. */
  constructor(readonly source: string) {
    let count = 1;
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) count++;
    const starts = new Uint32Array(count);
    let k = 1;
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts[k++] = i + 1;
    this.lineStarts = starts;
  }

  /** Number of lines: the number of `\n` plus one. */
  get lineCount(): number {
    return this.lineStarts.length;
  }

  /**
   * Length in UTF-16 units of a line, without its terminating `\n` (a `\r` before it counts).
   * @param line 1-based line number, 1 ≤ line ≤ lineCount.
   */
  lineLength(line: number): number {
    const start = this.lineStarts[line - 1]!;
    const end = line < this.lineStarts.length ? this.lineStarts[line]! - 1 : this.source.length;
    return end - start;
  }

  /**
   * Resolves a position without throwing.
   * @param line 1-based line; @param char 0-based UTF-16 units into the line.
   * @returns the UTF-16 offset, or {@link OUT_OF_RANGE} (line 0, line > lineCount, char > line
   *   length), or {@link SPLITS_SURROGATE_PAIR}.
   */
  tryResolve(line: number, char: number): number {
    if (line < 1 || line > this.lineStarts.length || char < 0) return OUT_OF_RANGE;
    if (char > this.lineLength(line)) return OUT_OF_RANGE;
    const offset = this.lineStarts[line - 1]! + char;
    if (offset > 0 && offset < this.source.length) {
      const before = this.source.charCodeAt(offset - 1);
      const after = this.source.charCodeAt(offset);
      if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) return SPLITS_SURROGATE_PAIR;
    }
    return offset;
  }

  /**
   * Resolves a position to a UTF-16 offset.
   * @param line 1-based line; @param char 0-based UTF-16 code units.
   * @param indices error indices to attach (editIndex, fileIndex).
   * @throws GcError `POSITION_OUT_OF_RANGE` for line 0, a line past the last, a character past
   *   the line's end, or a character between the halves of a surrogate pair.
   */
  resolve(line: number, char: number, indices: EditErrorIndices = {}): number {
    const offset = this.tryResolve(line, char);
    if (offset >= 0) return offset;
    throw positionError(this, line, char, offset, indices);
  }

  /**
   * The position of a UTF-16 offset.
   * @param offset 0 ≤ offset ≤ source.length; the offset of a `\n` maps to the end of its line.
   * @returns 1-based line and 0-based UTF-16 character.
   */
  positionOf(offset: number): { line: number; char: number } {
    const starts = this.lineStarts;
    const lo = lastStartAtOrBefore(starts, offset);
    return { line: lo + 1, char: offset - starts[lo]! };
  }
}

/**
 * Binary search over ascending line starts (UTF-16 offsets, `starts[0]` = 0): the index of the last
 * start ≤ `offset`, i.e. the 0-based line holding `offset`; 0 for an empty `starts`.
 */
export function lastStartAtOrBefore(starts: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Builds the `POSITION_OUT_OF_RANGE` error for a failed {@link LineIndex.tryResolve}. */
export function positionError(index: LineIndex, line: number, char: number, reason: number, indices: EditErrorIndices): GcError {
  let message: string;
  if (reason === SPLITS_SURROGATE_PAIR) {
    message = `position (${line},${char}) splits a UTF-16 surrogate pair`;
  } else if (line < 1 || line > index.lineCount) {
    message = `line ${line} is outside the source (1…${index.lineCount})`;
  } else {
    message = `character ${char} is past the end of line ${line} (length ${index.lineLength(line)})`;
  }
  return editError('POSITION_OUT_OF_RANGE', message, indices);
}

/**
 * Resolves one position of `source` (builds a {@link LineIndex}; reuse one index for many positions).
 * @returns the UTF-16 offset. @throws GcError `POSITION_OUT_OF_RANGE`.
 */
export function resolvePosition(source: string, line: number, char: number): number {
  return new LineIndex(source).resolve(line, char);
}

/**
 * Converts a UTF-16 offset of `source` to a UTF-8 byte offset (O(offset)).
 * @param offset on a scalar boundary, 0 ≤ offset ≤ source.length.
 */
export function utf8Offset(source: string, offset: number): number {
  return utf8LengthOfRange(source, 0, offset);
}
