/**
 * Segments one side of a merge like base: the same elements {@link segmentModule} gives, reading
 * only the part of the side's text that differs from base and reusing base's elements around it.
 */
import { scanFormBounds } from '../../coreform/scan.js';
import { commonPrefix, commonSuffix } from './common-bytes.js';
import { checkDeadline } from '../common/deadline.js';
import type { CommentElement, FormElement, SegmentedModule, TextElement } from './element.js';
import { ByteKeyTable } from './keys.js';
import { countKey, segmentForms, segmentModule, type SegmentState } from './segments.js';

/**
 * {@link segmentModule} of one side of a merge, given base's segmentation: exactly the same result
 * (keys included), but only the part of `text` that differs from base (between their common
 * prefix and suffix, widened to whole elements) is read. Elements in the common prefix are base's
 * own element objects; those in the common suffix are base's (same offsets) or copies moved by
 * the length difference. A merge reads one side whole and the other two only
 * where they changed.
 *
 * Why it is the same: an element's extent depends only on its own tokens, the whitespace around
 * it and the neighbouring tokens (segmentModule's rules). The range re-read starts at an element of
 * base whose predecessor lies wholly in the common prefix and ends before an element whose
 * predecessor lies wholly in the common suffix; the range must re-read with that predecessor as its
 * last element, unchanged (else no token may run on past the range: a comment a change opened, say),
 * so every decision outside the range sees the same bytes as in base. Otherwise, and on any read
 * error in the range, `text` is read whole (same result, same errors).
 * @throws GcError `core/parse/*` as {@link segmentModule}; TimeoutError after `deadline`.
 */
export function segmentLike(text: Uint8Array, base: SegmentedModule, deadline = Infinity): SegmentedModule {
  const bt = base.text;
  const be = base.elements;
  if (!base.defs || be.length === 0) return segmentModule(text, deadline);
  const p = commonPrefix(text, bt);
  if (p === text.length && p === bt.length) {
    // Identical: base's elements, offsets and keys as they are.
    return { text, elements: be.slice(), trailStart: base.trailStart, defs: base.defs };
  }
  const s = commonSuffix(text, bt, Math.min(text.length, bt.length) - p);
  const delta = text.length - bt.length;
  // Prefix: elements [0, k) kept; the range starts at element k (its end may depend on what follows).
  let whole = 0; // base elements wholly inside the common prefix
  while (whole < be.length && be[whole]!.end <= p) whole++;
  const k = Math.max(0, whole - 1);
  const from = whole === 0 ? 0 : be[k]!.start;
  // Suffix: the first base element wholly inside the common suffix is `j0`; elements after it are
  // kept (moved by `delta`), the range ends where the one after `j0` starts.
  const suffixStart = bt.length - s;
  let j0 = be.length;
  while (j0 > 0 && be[j0 - 1]!.start >= suffixStart) j0--;
  let j = Math.min(be.length, j0 + 1);
  if (j < k) j = k; // overlapping windows: the range is empty of kept elements
  const to = j < be.length ? be[j]!.start + delta : text.length;
  if (from > to || from > text.length) return segmentModule(text, deadline);
  const range = text.subarray(from, to);
  let read: ReturnType<typeof scanFormBounds>;
  try {
    read = scanFormBounds(range);
  } catch {
    return segmentModule(text, deadline); // the exact error, at its offset in the whole text
  }
  checkDeadline(deadline);
  // Prefix elements: base's own objects (same offsets, same bytes, same keys). The range is
  // segmented with key counts of its own; the prefix's occurrences are added afterwards.
  const st: SegmentState = { elements: be.slice(0, k), defCounts: new ByteKeyTable(16), otherCounts: new Map(), otherFirst: new Map(), ordinal: 0 };
  segmentForms(text, read.bounds, read.trailingStart, to, from, deadline, true, st);
  if (j < be.length) {
    // The range must end with base's element j - 1 as it is (same kind, same form, same end): then
    // no token (a `;` comment or an atom cut at the range's end) runs on into the kept elements,
    // and the boundary before element j sees the same bytes as in base.
    const lastIn = st.elements[st.elements.length - 1];
    const want = be[j - 1]!;
    if (
      !lastIn ||
      st.elements.length <= k ||
      lastIn.kind !== want.kind ||
      lastIn.end !== want.end + delta ||
      lastIn.formStart !== want.formStart + delta ||
      lastIn.formEnd !== want.formEnd + delta
    ) {
      return segmentModule(text, deadline);
    }
  }
  // Range elements: a key's index counts its occurrences in the prefix too. Base's tables give how
  // many base has and where the first is; a key base has more than once needs the prefix counted,
  // so such a side is read whole (rare: a redefinition or a repeated comment near the change).
  const defs = base.defs;
  const others = base.others;
  const othersFirst = base.othersFirst;
  if (!others || !othersFirst) return segmentModule(text, deadline);
  for (let x = k; x < st.elements.length; x++) {
    const e = st.elements[x] as FormElement | CommentElement;
    let total: number;
    let first: number;
    if (e.isDef) {
      total = defs.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash);
      first = total > 0 ? defs.first(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash) : -1;
    } else {
      total = others.get(e.keyBase) ?? 0;
      first = total > 0 ? othersFirst.get(e.keyBase)! : -1;
    }
    if (total > 1) return segmentModule(text, deadline);
    if (total === 1 && first < k) e.keyIndex++;
  }
  // Suffix elements: base's key index moved by how many more of the key the range has than base's
  // elements it replaces ([k, j)); base's objects when nothing moved, else copies.
  const replacedDefs = new ByteKeyTable(16);
  const replacedOthers = new Map<string, number>();
  for (let i = k; i < j; i++) {
    const e = be[i]!;
    if (e.isDef) replacedDefs.add(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash, i);
    else countKey(replacedOthers, e.keyBase);
  }
  const rangeDefs = st.defCounts;
  const rangeOthers = st.otherCounts;
  const anyOthers = rangeOthers.size > 0 || replacedOthers.size > 0;
  // Usually the range defines the same names as the elements it replaces, as often (an edit inside
  // definitions): then no kept definition's key index moves, and the loop below skips the lookups.
  const countMoves = (e: TextElement): boolean =>
    e.isDef && rangeDefs.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash) !== replacedDefs.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash);
  let defsMove = false;
  for (let x = k; x < st.elements.length && !defsMove; x++) defsMove = countMoves(st.elements[x]!);
  for (let i = k; i < j && !defsMove; i++) defsMove = countMoves(be[i]!);
  for (let i = j; i < be.length; i++) {
    const e = be[i]!;
    const at = st.elements.length;
    let keyIndex = e.keyIndex;
    if (e.isDef) {
      if (defsMove) {
        const now = rangeDefs.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash);
        const was = replacedDefs.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash);
        keyIndex += (now < 0 ? 0 : now) - (was < 0 ? 0 : was);
      }
    } else if (anyOthers) keyIndex += (rangeOthers.get(e.keyBase) ?? 0) - (replacedOthers.get(e.keyBase) ?? 0);
    if (delta === 0 && keyIndex === e.keyIndex) {
      st.elements.push(e);
      continue;
    }
    const moved = e.kind === 'form' ? (e as FormElement).movedTo(text, delta, bt, keyIndex) : (e as CommentElement).movedTo(delta, keyIndex);
    moved.position = at;
    st.elements.push(moved);
  }
  // The side's key tables would cover the range only: segmentLike's result has none.
  const elements = st.elements;
  return { text, elements, trailStart: elements.length > 0 ? elements[elements.length - 1]!.end : 0 };
}
