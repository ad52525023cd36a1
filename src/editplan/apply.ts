/**
 * Apply: one source string + that file's edits → the output string, all-or-nothing.
 * Implements weavatrix.edit-plan.v1 "Position rules" and "Application invariants"
 * (docs/reference/edit-plan-engine.md "Applying one file's edits").
 */
import { editError, type EditErrorIndices } from './errors.js';
import { applyLimits, type ApplyLimits } from './limits.js';
import type { TextEdit } from './model.js';
import { LineIndex, positionError } from './positions.js';
import { utf8ByteLength, utf8LengthOfRange, utf8Prefix } from './unicode.js';
import { checkEdit } from './validate.js';

/** Options of {@link applyEdits}. */
export interface ApplyOptions {
  /** Budgets; missing members take {@link DEFAULT_APPLY_LIMITS}. */
  limits?: Partial<ApplyLimits>;
  /** Called with the complete output; returning false fails with `VALIDATION_REJECTED`. */
  validator?: (output: string) => boolean;
  /** Attached as `fileIndex` to every error (the per-source engine itself knows no file). */
  fileIndex?: number;
}

/** One applied edit, in application (sorted) order. Offsets are UTF-16 code units. */
export interface AppliedChange {
  /** Index of the edit in the input array. */
  editIndex: number;
  /** Replaced range [sourceStart, sourceEnd) of the source. */
  sourceStart: number;
  sourceEnd: number;
  /** Range [outputStart, outputEnd) of the output that holds the edit's `after`. */
  outputStart: number;
  outputEnd: number;
}

/** The result of {@link applyEdits}. */
export interface ApplyResult {
  /** The output text. */
  text: string;
  /** Number of edits applied (= input edits). */
  editsApplied: number;
  /** UTF-8 bytes of the source and of the output. */
  bytesBefore: number;
  bytesAfter: number;
  /** The applied edits in sorted order. */
  changes: AppliedChange[];
}

/** A bounded preview of a text: at most `maxPreviewBytes` UTF-8 bytes, cut on a scalar boundary. */
export interface TextPreview {
  /** UTF-8 bytes of the whole text. */
  byteLen: number;
  /** The preview. */
  text: string;
  /** True when `text` is shorter than the whole text. */
  truncated: boolean;
}

/**
 * Evidence of a `BEFORE_MISMATCH` (in the error's `details.mismatch`): the source range in UTF-8
 * byte offsets [start, end) and previews of the expected (`before`) and actual source text.
 */
export interface BeforeMismatch {
  sourceRange: { start: number; end: number };
  expected: TextPreview;
  actual: TextPreview;
}

function preview(text: string, start: number, end: number, maxBytes: number): TextPreview {
  const byteLen = utf8LengthOfRange(text, start, end);
  // maxBytes + 1 code units always hold more than maxBytes bytes, so the cut never needs more.
  const cut = utf8Prefix(text.slice(start, Math.min(end, start + maxBytes + 1)), maxBytes);
  return { byteLen, text: cut.text, truncated: cut.byteLen < byteLen };
}

/**
 * Applies every edit to the original `source` (edits are never interpreted sequentially), failing
 * with one typed error and no partial output. Steps, each fail-fast:
 * 1. source over `maxSourceBytes` UTF-8 bytes or more than `maxEdits` edits → `PLAN_TOO_LARGE`
 *    (no editIndex; also with zero edits); a source holding a lone surrogate (not encodable as
 *    UTF-8) → `SOURCE_NOT_UTF8`;
 * 2. build the line index once;
 * 3. in array order, for each edit j: its own checks (`checkEdit`: `INVALID_EDIT`/`UNPROVEN_EDIT`),
 *    then resolve start and end (`POSITION_OUT_OF_RANGE`) — so an earlier edit's bad position beats
 *    a later edit's `INVALID_EDIT`, and every position is resolved before any text is compared;
 * 4. in array order, the source slice must equal `before` exactly → `BEFORE_MISMATCH` with
 *    `details.mismatch` ({@link BeforeMismatch}; the message holds neither text);
 * 5. sort by (start, insertions before non-empty ranges, end, array index) and scan: an edit
 *    starting before the end of the latest non-empty range → `OVERLAPPING_EDITS` with editIndex =
 *    that range (earlier in position order), relatedEditIndex = the conflicting edit. Inserts at
 *    one offset keep array order; an insert at a replacement's start goes before its text, at its
 *    end after it; an insert strictly inside a replacement conflicts;
 * 6. output bytes = source − removed + inserted, over `maxOutputBytes` → `OUTPUT_TOO_LARGE`
 *    (no index; checked before the output is built);
 * 7. build the output; `validator(output)` false → `VALIDATION_REJECTED`.
 * Cost: O(n + e log e) for n source units and e edits.
 * @param source the original text.
 * @param edits the file's edits (positions: 1-based lines, 0-based UTF-16 characters).
 * @param options budgets, validator and the `fileIndex` to report.
 * @returns output text, UTF-8 sizes and the applied changes (UTF-16 offsets).
 * @throws GcError with the codes above; `editIndex`/`relatedEditIndex` are indices into `edits`.
 */
export function applyEdits(source: string, edits: readonly TextEdit[], options: ApplyOptions = {}): ApplyResult {
  const limits = applyLimits(options.limits);
  const fileIndex = options.fileIndex;
  const at = (editIndex?: number, relatedEditIndex?: number): EditErrorIndices => ({
    fileIndex,
    editIndex,
    relatedEditIndex,
  });

  const bytesBefore = utf8ByteLength(source);
  if (bytesBefore > limits.maxSourceBytes) {
    throw editError('PLAN_TOO_LARGE', `source has ${bytesBefore} UTF-8 bytes, over the limit of ${limits.maxSourceBytes}`, at());
  }
  if (edits.length > limits.maxEdits) {
    throw editError('PLAN_TOO_LARGE', `${edits.length} edits exceed the limit of ${limits.maxEdits}`, at());
  }
  if (!source.isWellFormed()) {
    throw editError('SOURCE_NOT_UTF8', 'source holds a lone surrogate and cannot be encoded as UTF-8', at());
  }

  const index = new LineIndex(source);
  const count = edits.length;
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  for (let j = 0; j < count; j++) {
    const edit = edits[j]!;
    checkEdit(edit, j, fileIndex);
    const start = index.tryResolve(edit.startLine, edit.startChar);
    if (start < 0) throw positionError(index, edit.startLine, edit.startChar, start, at(j));
    const end = index.tryResolve(edit.endLine, edit.endChar);
    if (end < 0) throw positionError(index, edit.endLine, edit.endChar, end, at(j));
    starts[j] = start;
    ends[j] = end;
  }

  let removedBytes = 0;
  let insertedBytes = 0;
  for (let j = 0; j < count; j++) {
    const { before, after } = edits[j]!;
    const start = starts[j]!;
    const end = ends[j]!;
    if (end - start !== before.length || !source.startsWith(before, start)) {
      const max = limits.maxPreviewBytes;
      const expected = preview(before, 0, before.length, max);
      const actual = preview(source, start, end, max);
      const byteStart = utf8LengthOfRange(source, 0, start);
      const mismatch: BeforeMismatch = {
        sourceRange: { start: byteStart, end: byteStart + actual.byteLen },
        expected,
        actual,
      };
      throw editError(
        'BEFORE_MISMATCH',
        `before text (${expected.byteLen} bytes) does not match the source at UTF-8 bytes ${byteStart}..${byteStart + actual.byteLen}`,
        at(j),
        { details: { mismatch } },
      );
    }
    removedBytes += utf8ByteLength(before);
    insertedBytes += utf8ByteLength(after);
  }

  const order = sortOrder(starts, ends);

  let activeEnd = 0;
  let activeIndex = -1;
  for (let k = 0; k < count; k++) {
    const j = order[k]!;
    if (activeIndex >= 0 && starts[j]! < activeEnd) {
      throw editError('OVERLAPPING_EDITS', `edit ${j} overlaps edit ${activeIndex}`, at(activeIndex, j));
    }
    if (ends[j]! > starts[j]!) {
      activeEnd = ends[j]!;
      activeIndex = j;
    }
  }

  const bytesAfter = bytesBefore - removedBytes + insertedBytes;
  if (bytesAfter > limits.maxOutputBytes) {
    throw editError('OUTPUT_TOO_LARGE', `output would have ${bytesAfter} UTF-8 bytes, over the limit of ${limits.maxOutputBytes}`, at());
  }

  // Plain concatenation: V8 builds a rope and flattens it once, faster than joining parts.
  let text = '';
  const changes: AppliedChange[] = new Array(count);
  let cursor = 0;
  for (let k = 0; k < count; k++) {
    const j = order[k]!;
    const start = starts[j]!;
    if (start > cursor) {
      text += source.slice(cursor, start);
      cursor = start;
    }
    const outputStart = text.length;
    text += edits[j]!.after;
    changes[k] = { editIndex: j, sourceStart: start, sourceEnd: ends[j]!, outputStart, outputEnd: text.length };
    if (ends[j]! > cursor) cursor = ends[j]!;
  }
  if (cursor < source.length) text += source.slice(cursor);

  if (options.validator !== undefined && !options.validator(text)) {
    throw editError('VALIDATION_REJECTED', 'the output was rejected by the validator', at());
  }
  return { text, editsApplied: count, bytesBefore, bytesAfter, changes };
}

/** Edit indices fit in the low 21 bits of a sort key (2,097,152 edits). */
const INDEX_SPACE = 2 ** 21;

/**
 * Edit indices in application order: by (start, insertions before non-empty ranges, end, array
 * index). Fast path: one numeric key per edit, (start·2 + nonEmpty)·2^21 + index, sorted natively
 * (exact: start < 2^30 for any JS string, so keys stay below 2^53); then each run of non-empty
 * ranges sharing a start — they always overlap, but the order decides the reported indices — is
 * ordered by end. Beyond 2^21 edits a comparator sort is used.
 * @param starts, ends resolved UTF-16 offsets by edit index.
 */
function sortOrder(starts: Uint32Array, ends: Uint32Array): Uint32Array {
  const count = starts.length;
  const order = new Uint32Array(count);
  if (count > INDEX_SPACE) {
    for (let j = 0; j < count; j++) order[j] = j;
    return order.sort((a, b) => {
      const byStart = starts[a]! - starts[b]!;
      if (byStart !== 0) return byStart;
      const aInsert = starts[a] === ends[a] ? 0 : 1;
      const bInsert = starts[b] === ends[b] ? 0 : 1;
      return aInsert - bInsert || ends[a]! - ends[b]! || a - b;
    });
  }
  const keys = new Float64Array(count);
  for (let j = 0; j < count; j++) keys[j] = (starts[j]! * 2 + (ends[j]! > starts[j]! ? 1 : 0)) * INDEX_SPACE + j;
  keys.sort();
  for (let k = 0; k < count; k++) order[k] = keys[k]! % INDEX_SPACE;
  for (let k = 0; k < count;) {
    const first = order[k]!;
    let next = k + 1;
    if (ends[first]! > starts[first]!) {
      while (next < count && starts[order[next]!] === starts[first]) next++;
      if (next - k > 1) order.subarray(k, next).sort((a, b) => ends[a]! - ends[b]! || a - b);
    }
    k = next;
  }
  return order;
}
