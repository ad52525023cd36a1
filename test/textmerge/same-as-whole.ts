// The tests' check of the reduced merge (segment-reduced.ts, reduced.ts): whenever mergeModuleText
// ran on the reduced sides, merging the same triple whole (`reduce: 'never'`) must give exactly the
// same text, pieces (and the side each comes from), conflicts, messages and merged count.
import { mergeModuleText, type TextMergeOptions, type TextMergeResult } from '../../src/textmerge/module.js';

/**
 * mergeModuleText, and when its result is a reduced merge, the whole merge compared with it.
 * @throws Error (not a GcError) when the whole merge fails or differs; otherwise what
 *   mergeModuleText throws.
 */
export function mergeSameAsWhole(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: TextMergeOptions): TextMergeResult {
  const reduced = mergeModuleText(base, ours, theirs, options);
  if (!reduced.stats.reduced) return reduced;
  let whole: TextMergeResult | undefined;
  let error: unknown;
  try {
    whole = mergeModuleText(base, ours, theirs, { ...options, reduce: 'never' });
  } catch (e) {
    error = e;
  }
  const strip = (r: TextMergeResult): string =>
    JSON.stringify({
      text: Buffer.from(r.text).toString('latin1'),
      conflicts: r.conflicts,
      messages: r.messages,
      merged: r.stats.merged,
      pieces: r.pieces.map((p) => [Buffer.from(p.bytes).toString('latin1'), p.from?.side]),
    });
  if (!whole) throw new Error(`the reduced merge succeeded, the whole merge failed: ${(error as Error).message}`);
  if (strip(whole) !== strip(reduced)) throw new Error(`the reduced merge differs from the whole merge:\n${strip(reduced)}\n${strip(whole)}`);
  return reduced;
}
