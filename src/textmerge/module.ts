/**
 * The format-preserving structural merge of one `.gc` module's text: aligns top-level forms, merges
 * their order three-way, merges each form's text by the v0.1 rules 1–3, and marks only the forms
 * that really conflict.
 *
 * All texts are LF-normalized UTF-8 without BOM (newline.ts does the rest); offsets are 0-based
 * bytes. The result is built from pieces of the inputs, so untouched forms are copied byte for byte.
 *
 * Steps, called in order by {@link mergeModuleText} and {@link mergeSegmented}:
 * 1. Segmentation: `segmentModule` base (segments.ts), `segmentLike` ours and theirs
 *    (segment-like.ts: a side is read only where it differs from base; same result as reading it
 *    whole); or, for a few changed windows of a large module, `segmentReduced` (segment-reduced.ts,
 *    rules in reduced.ts).
 * 2. Alignment (align.ts): `(def NAME …)` by NAME, other forms and comment blocks by content, then
 *    unmatched non-def forms / comment blocks by position.
 * 3. Resolution (resolve.ts): GenesisCode `docs/spec/SEMANTIC_PATCH_MERGE_v0.1.md` rules 1–3 on each element's text, then
 *    the semantic pass (semantic-pass.ts: renames carried over, dangling references).
 * 4. `mergeOrder` (order.ts): ours' order, with theirs' additions, moves and kept-by-theirs
 *    conflicts placed after their predecessor on theirs' side (after ours' additions at that spot).
 * 5. Rendering (render.ts, separators.ts, output.ts): separators from a side where the two
 *    neighbours were adjacent, conflicts as one marker block per element.
 * 6. Safety net (safety-net.ts): every reading of the result must split into exactly the decided
 *    elements, byte for byte, else `merge/text/unsafe` and the driver falls back to the line merge.
 */
import { scanFormBounds } from '../coreform/scan.js';
import { alignSides } from './align/align.js';
import type { SideModule } from './align/merge-records.js';
import { checkDeadline } from './common/deadline.js';
import { concatBytes } from './common/diff3.js';
import { mergeOrder } from './resolve/order-merge.js';
import type { RenderContext } from './render/element-output.js';
import { NeedsWholeMerge } from './segment/reduced-merge-rules.js';
import { render } from './render/render.js';
import { resolveElement } from './resolve/resolve.js';
import { unsafe, type TextMergeOptions, type TextMergeResult } from './common/result.js';
import { checkReadings } from './render/safety-net.js';
import { segmentLike } from './segment/segment-like-base.js';
import { segmentReduced } from './segment/reduced-segmentation.js';
import { segmentModule } from './segment/segments.js';
import { semanticPass } from './resolve/semantic-pass.js';
import { SideOrder } from './render/side-order.js';

export { alignElements } from './align/align.js';
export {
  TEXT_UNSAFE,
  type Side,
  type TextConflict,
  type TextConflictCode,
  type TextMergeOptions,
  type TextMergeResult,
  type TextPiece,
} from './common/result.js';
export { cleanBoundary } from './render/safety-net.js';

/**
 * Merges three versions of a module's text. See the file comment for the steps.
 * @param base,ours,theirs LF-normalized UTF-8 without BOM (`normalizeSide(...).text`).
 * @returns the result; `conflicts` is empty for a clean merge.
 * @throws GcError `core/parse/*` when a side does not read, `merge/text/unsafe` when the merge
 *   cannot be represented (incompatible reorders) or fails its re-read check;
 *   TimeoutError after `options.deadline`.
 */
export function mergeModuleText(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, options: TextMergeOptions): TextMergeResult {
  const deadline = options.deadline ?? Infinity;
  const reduce = options.reduce ?? 'auto';
  // Base is scanned once, for the reduced segmentation and, when it steps aside, the whole one.
  const read = scanFormBounds(base);
  if (reduce !== 'never') {
    const sides = segmentReduced(base, ours, theirs, read, deadline, reduce === 'always');
    if (sides) {
      try {
        return mergeSegmented({ side: 'base', m: sides.base }, { side: 'ours', m: sides.ours }, { side: 'theirs', m: sides.theirs }, options, true);
      } catch (error) {
        if (!(error instanceof NeedsWholeMerge)) throw error;
      }
    }
  }
  const B: SideModule = { side: 'base', m: segmentModule(base, deadline, true, read) };
  // Ours and theirs are read only where they differ from base (segmentLike; same result).
  const O: SideModule = { side: 'ours', m: segmentLike(ours, B.m, deadline) };
  const T: SideModule = { side: 'theirs', m: segmentLike(theirs, B.m, deadline) };
  return mergeSegmented(B, O, T, options, false);
}

/**
 * Steps 2–6 of {@link mergeModuleText} on segmented sides. `reduced`: the sides come from
 * segmentReduced; a step that cannot be done on them throws NeedsWholeMerge.
 */
function mergeSegmented(B: SideModule, O: SideModule, T: SideModule, options: TextMergeOptions, reduced: boolean): TextMergeResult {
  const deadline = options.deadline ?? Infinity;
  checkDeadline(deadline);

  const { aligned, oIds, tIds, windows } = alignSides(B, O, T, reduced);
  checkDeadline(deadline);

  let merged = 0;
  const messages: string[] = [];
  const prefer = options.prefer ?? 'ours';
  for (let i = 0; i < aligned.length; i++) {
    if ((i & 255) === 0) checkDeadline(deadline);
    const a = aligned[i]!;
    a.resolution = resolveElement(a, B, O, T, deadline, prefer, options.markers, messages);
    if (a.resolution.kind === 'merged') merged++;
  }

  semanticPass(aligned, B, O, T, { oIds, tIds, windows }, options.markers, messages, deadline);
  checkDeadline(deadline);

  const nB = B.m.elements.length;
  const bIds: number[] = new Array<number>(nB);
  for (let i = 0; i < nB; i++) bIds[i] = i;
  const bOrder = new SideOrder(B, bIds, aligned.length);
  const oOrder = new SideOrder(O, oIds, aligned.length);
  const tOrder = new SideOrder(T, tIds, aligned.length);
  const order = mergeOrder(
    oIds,
    tIds,
    (id) => aligned[id]!.b,
    (id) => aligned[id]!.resolution.kind !== 'deleted',
    deadline,
  );
  if (order === undefined) {
    if (reduced) throw new NeedsWholeMerge();
    throw unsafe('the two sides reordered the top-level forms incompatibly');
  }
  checkDeadline(deadline);

  const ctx: RenderContext = { B, O, T, bOrder, oOrder, tOrder, aligned, markers: options.markers, prefer, deadline, reduced };
  const real = render(ctx, order, 'markers', false);
  const text = real.pieces.length === 1 ? real.pieces[0]!.bytes : concatBytes(real.pieces.map((p) => p.bytes));
  checkDeadline(deadline);

  const fullRereads = checkReadings(real, (mode, collect) => render(ctx, order, mode, collect), reduced, options.checkSafetyNet === true, deadline);
  return {
    text,
    pieces: real.pieces,
    conflicts: real.conflicts,
    messages,
    stats: { elements: order.length, merged, conflicts: real.conflicts.length, fullRereads, reduced },
  };
}
