/**
 * Splits a `.gc` module's text into the elements the structural text merge aligns: top-level forms
 * (with the comment lines directly above them and a comment on their last line) and free-standing
 * comment blocks, plus the whitespace between them.
 *
 * Input is LF-normalized UTF-8 without a BOM (newline.ts); every offset is a 0-based byte offset.
 * Concatenating `lead`, then each element's body preceded by its separator, then `trail` gives the
 * text back exactly: the sides are read keeping each form's original text and the comments and
 * blank lines around it (docs/driver.md).
 */
import { defName } from '../../coreform/forms.js';
import { scanFormBounds } from '../../coreform/scan.js';
import { decodeSlice } from '../../util/bytes.js';
import { checkDeadline } from '../common/deadline.js';
import { CommentElement, FormElement, type SegmentedModule, type TextElement } from './element.js';
import { ByteKeyTable, DefNameScanner, contentKey, hashBytes } from './keys.js';

const LF = 0x0a;
const SEMI = 0x3b;

const nameEncoder = new TextEncoder();

/**
 * Reads `text` and splits it into elements.
 * @param text LF-normalized UTF-8 without BOM.
 * @param deadline ms timestamp (`performance.now()` clock); throws `TimeoutError` after it.
 * @param keys false: elements get no alignment key (`key` is `''`) and non-def forms are not read,
 *   for re-reads that only compare kinds, spans and def names (the safety net).
 * @param scanned `scanFormBounds(text)` when the caller has it already (a merge scans base once for
 *   segmentReduced and, if that steps aside, for this).
 * @throws GcError `core/parse/*` when the text does not read (the driver then falls back to the line
 *   merge).
 */
export function segmentModule(text: Uint8Array, deadline = Infinity, keys = true, scanned?: FormBounds): SegmentedModule {
  const read = scanned ?? scanFormBounds(text);
  checkDeadline(deadline);
  const st = newState(read.bounds.length >> 1);
  segmentForms(text, read.bounds, read.trailingStart, text.length, 0, deadline, keys, st);
  return finish(text, st, keys);
}

/** A text's top-level form bounds, as {@link scanFormBounds} returns them. */
export type FormBounds = ReturnType<typeof scanFormBounds>;

export /** What the segmentation carries from one range of a text to the next. */
interface SegmentState {
  elements: TextElement[];
  /** Occurrences of each definition name (and the index of the first). */
  defCounts: ByteKeyTable;
  /** Occurrences of each other key text, and the index of the first. */
  otherCounts: Map<string, number>;
  otherFirst: Map<string, number>;
  /** Forms so far (the ordinal of the next form). */
  ordinal: number;
}

/** A fresh segmentation state for about `forms` forms. */
export function newState(forms: number): SegmentState {
  return { elements: [], defCounts: new ByteKeyTable(forms), otherCounts: new Map(), otherFirst: new Map(), ordinal: 0 };
}

/** The segmented module of `text` from the state `st` (its key tables only when split with `keys`). */
export function finish(text: Uint8Array, st: SegmentState, keys: boolean): SegmentedModule {
  const elements = st.elements;
  return {
    text,
    elements,
    trailStart: elements.length > 0 ? elements[elements.length - 1]!.end : 0,
    defs: keys ? st.defCounts : undefined,
    others: keys ? st.otherCounts : undefined,
    othersFirst: keys ? st.otherFirst : undefined,
  };
}

/** Counts one more occurrence of `base` in `counts`: returns how many came before it. */
export function countKey(counts: Map<string, number>, base: string): number {
  const k = counts.get(base) ?? 0;
  counts.set(base, k + 1);
  return k;
}

/** Counts one more element with the other (not a definition) key `base`, at `index`. */
function countOther(st: SegmentState, base: string, index: number): number {
  const k = countKey(st.otherCounts, base);
  if (k === 0) st.otherFirst.set(base, index);
  return k;
}

/**
 * Segments the forms `bounds` (start and end of each form in turn, relative to `shift`: at
 * `shift + offset` in `text`; {@link scanFormBounds}) and the comments in the trivia up to
 * `trailEnd`, appending to `st`. The first token starts a new element (a fresh segmentation of that
 * range).
 *
 * Tokens are handled in text order: the comments in the trivia before each form (and after the
 * last one), then the form. A comment on the same line as the end of a form (and no comment there
 * yet) belongs to that form; comments on consecutive lines form a block; a block directly above a
 * form (one line break between) is attached to it, any other block is an element of its own.
 * One flat loop with the per-token steps written out: a driver process runs it once per form of
 * base, in V8's interpreter and baseline code, where each call costs as much as several of its
 * lines.
 */
export function segmentForms(
  text: Uint8Array,
  bounds: ArrayLike<number>,
  trailingStart: number,
  trailEnd: number,
  shift: number,
  deadline: number,
  keys: boolean,
  st: SegmentState,
): void {
  const elements = st.elements;
  const defCounts = st.defCounts;
  const names = new DefNameScanner();
  // The comment block being collected: [pendingStart, pendingEnd), none when pendingStart < 0.
  let pendingStart = -1;
  let pendingEnd = -1;
  const flushComment = (): void => {
    const el = new CommentElement(pendingStart, pendingEnd, pendingStart, pendingEnd);
    if (keys) {
      el.keyBase = `comment:${decodeSlice(text, pendingStart, pendingEnd)}`;
      el.keyIndex = countOther(st, el.keyBase, elements.length);
    }
    el.position = elements.length;
    elements.push(el);
    pendingStart = -1;
  };
  // The last form, while a comment on its last line may still join it.
  let lastForm: FormElement | undefined;
  const nForms = bounds.length >> 1;
  for (let f = 0; f <= nForms; f++) {
    // The trivia before form f (f = nForms: after the last form, up to trailEnd).
    let i = f === nForms ? shift + trailingStart : shift + (f === 0 ? 0 : bounds[2 * f - 1]!);
    const to = f < nForms ? shift + bounds[2 * f]! : trailEnd;
    while (i < to) {
      if (text[i] !== SEMI) {
        i++;
        continue;
      }
      // A comment [i, e).
      let e = text.indexOf(LF, i);
      if (e === -1 || e > to) e = to;
      let sameLine = lastForm !== undefined && pendingStart < 0 && lastForm.end <= i && !lastForm.endsWithComment;
      for (let q = sameLine ? lastForm!.end : i; q < i; q++) {
        if (text[q] === LF) {
          sameLine = false;
          break;
        }
      }
      if (sameLine) {
        // On the same line as the end of a form: it belongs to that form.
        lastForm!.end = e;
        lastForm!.endsWithComment = true;
      } else {
        // On the line after the pending block: it joins the block.
        let lfs = 0;
        if (pendingStart >= 0) for (let q = pendingEnd; q < i; q++) if (text[q] === LF) lfs++;
        if (lfs === 1) pendingEnd = e;
        else {
          if (pendingStart >= 0) flushComment();
          pendingStart = i;
          pendingEnd = e;
        }
        lastForm = undefined;
      }
      i = e;
    }
    if (f === nForms) break;
    // Form f.
    const formStart = shift + bounds[2 * f]!;
    const formEnd = shift + bounds[2 * f + 1]!;
    if ((st.ordinal & 255) === 0) checkDeadline(deadline);
    let start = formStart;
    if (pendingStart >= 0) {
      let lfs = 0;
      for (let q = pendingEnd; q < formStart; q++) if (text[q] === LF) lfs++;
      if (lfs === 1) {
        // The comment block directly above the form is attached to it.
        start = pendingStart;
        pendingStart = -1;
      } else flushComment();
    }
    const el = new FormElement(text, start, formEnd, formStart, formEnd);
    const fast = names.scan(text, formStart, formEnd);
    if (fast >= 0) {
      el.isDef = true;
      el.nameSrc = text;
      el.nameStart = names.start;
      el.nameEnd = fast;
      el.nameHash = names.hash;
    } else if (fast === -2) {
      const name = defName(el.term);
      if (name !== undefined) {
        el.isDef = true;
        el.nameSrc = nameEncoder.encode(name);
        el.nameEnd = el.nameSrc.length;
        el.nameHash = hashBytes(el.nameSrc, 0, el.nameEnd);
      }
    }
    if (keys) {
      if (el.isDef) {
        el.keyIsDef = true;
        el.keyIndex = defCounts.add(el.nameSrc!, el.nameStart, el.nameEnd, el.nameHash, elements.length);
      } else {
        el.otherKey = contentKey(el.term, st.ordinal);
        el.keyIndex = countOther(st, el.otherKey, elements.length);
      }
    }
    st.ordinal++;
    el.position = elements.length;
    elements.push(el);
    lastForm = el;
  }
  if (pendingStart >= 0) flushComment();
}
