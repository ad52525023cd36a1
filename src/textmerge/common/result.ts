/** The text merge's public shapes: its options, its result and conflicts, and the error code it throws. */
import { GcError } from '../../util/errors.js';
import type { MarkerOptions } from './diff3.js';

/** A merge input. */
export type Side = 'base' | 'ours' | 'theirs';

/**
 * Conflict codes of the text merge, named after GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md`'s:
 * `form/divergent-edit` (both sides changed one element differently and the lines overlap),
 * `form/delete-modify` (one side deleted an element the other changed),
 * `form/divergent-add` (both added the same name, or the same element, with different text),
 * `form/dangling-reference` (one side removed a definition the other side's changes newly reference).
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
   * full re-read rejects one (the cheap proof must never accept what the full re-read rejects;
   * safety-net.ts `checkReadings`).
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
   * `always` whenever the texts allow it, `never`.
   */
  reduce?: 'auto' | 'always' | 'never';
}

/** Error code: the structural merge cannot represent this merge or failed its own check. */
export const TEXT_UNSAFE = 'merge/text/unsafe';

/** A `merge/text/unsafe` error with `message`. */
export function unsafe(message: string): GcError {
  return new GcError(TEXT_UNSAFE, message);
}
