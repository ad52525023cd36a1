/**
 * Splits a `.gc` module's text into the elements the structural text merge aligns: top-level forms
 * (with the comment lines directly above them and a comment on their last line) and free-standing
 * comment blocks, plus the whitespace between them.
 *
 * Input is LF-normalized UTF-8 without a BOM (newline.ts); every offset is a 0-based byte offset.
 * Concatenating `lead`, then each element's body preceded by its separator, then `trail` gives the
 * text back exactly. Implements issue #3 "Structural text merge" (reading the sides keeping each
 * form's original text and the comments and blank lines around it).
 */
import { canonicalizeForm } from '../coreform/canon.js';
import { printTerm } from '../coreform/print.js';
import { readTerm } from '../coreform/read.js';
import { scanFormBounds } from '../coreform/scan.js';
import { decodeSlice } from '../util/bytes.js';
import { listItems, type Term } from '../coreform/term.js';
import { checkDeadline } from './deadline.js';

/** One aligned unit of a module's text. */
export interface TextElement {
  /** `form`: a top-level form with its attached comments; `comment`: a free-standing comment block. */
  kind: 'form' | 'comment';
  /** Body span `[start, end)`: from the first attached comment (or the form) to the end of the form's last line's comment, or of the form. */
  start: number;
  end: number;
  /**
   * Alignment key, unique within the module: `def:<name>#<k>` for `(def NAME …)`,
   * `form:<canonical print>#<k>` for other forms ({@link contentKey}), `comment:<text>#<k>` for
   * comment blocks,
   * where `<k>` counts earlier elements with the same key.
   */
  key: string;
  /**
   * The key in parts, so that alignment compares without building `key` (issue #15): `keyIsDef`
   * true: `keyBase` is the def NAME; false: `keyBase` is the key's text before `#<k>`. `keyIndex`
   * is `<k>` (-1 when the module was split without keys).
   */
  keyBase: string;
  keyIsDef: boolean;
  keyIndex: number;
  /** The form's own span `[formStart, formEnd)` (comment blocks: the body span). */
  formStart: number;
  formEnd: number;
  /** The defined name for `(def NAME …)` forms (decoded from the text when first asked for). */
  readonly defName: string | undefined;
  /** True for `(def NAME …)` forms (`defName` is then defined), without decoding the name. */
  isDef: boolean;
  /**
   * The name's UTF-8 bytes as `nameSrc[nameStart, nameEnd)` and their FNV-1a hash `nameHash`, so
   * that alignment matches definitions without decoding names (issue #15); `nameSrc` undefined
   * for elements that are not definitions.
   */
  nameSrc: Uint8Array | undefined;
  nameStart: number;
  nameEnd: number;
  nameHash: number;
  /**
   * The element's index in the module it was segmented in. An element {@link segmentLike} reuses
   * in a side keeps its index in base, so `base.elements[e.position] === e` tells that it is base's
   * element (and aligns with it).
   */
  position: number;
  /** The form's term as read (not canonicalized); undefined for comment blocks. */
  term: Term | undefined;
  /** True when the body ends inside a `;` comment, so whatever follows must start on a new line. */
  endsWithComment: boolean;
}

/**
 * The separator before element `i` of `m` (the whitespace between element `i - 1` and element `i`;
 * for element 0 the lead, `[0, elements[0].start)`), as a span.
 */
export function separatorBefore(m: SegmentedModule, i: number): { start: number; end: number } {
  return { start: i === 0 ? 0 : m.elements[i - 1]!.end, end: m.elements[i]!.start };
}

/** A module split into elements (see the file comment). */
export interface SegmentedModule {
  /** The LF-normalized text the offsets refer to. */
  text: Uint8Array;
  elements: TextElement[];
  /** Whitespace after the last element, or the whole text when it has no element: `[trailStart, text.length)`. */
  trailStart: number;
  /**
   * Definition names (their bytes) → occurrences and the index of the first (`ByteKeyTable.first`);
   * undefined when split without keys.
   */
  defs?: ByteKeyTable | undefined;
  /** Other keys' texts → occurrences, and → the index of the first; undefined as `defs`. */
  others?: Map<string, number> | undefined;
  othersFirst?: Map<string, number> | undefined;
}

const LF = 0x0a;
const SEMI = 0x3b;

/**
 * A form element whose term is read from its bytes only when asked for: the merge compares forms
 * by their text and needs terms only for the keys of forms that are not `(def NAME …)`.
 */
class FormElement implements TextElement {
  readonly kind = 'form' as const;
  /** The key text of a form that is not a definition (see `keyBase`). */
  otherKey = '';
  keyIsDef = false;
  keyIndex = -1;
  isDef = false;
  nameSrc: Uint8Array | undefined = undefined;
  nameStart = 0;
  nameEnd = 0;
  nameHash = 0;
  position = -1;
  endsWithComment = false;
  cached: Term | undefined;
  decoded: string | undefined;
  constructor(
    private readonly text: Uint8Array,
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
  ) {}
  get term(): Term {
    return (this.cached ??= readTerm(this.text.subarray(this.formStart, this.formEnd)));
  }
  get defName(): string | undefined {
    if (!this.isDef) return undefined;
    return (this.decoded ??= decodeSlice(this.nameSrc!, this.nameStart, this.nameEnd));
  }
  get keyBase(): string {
    return this.keyIsDef ? this.defName! : this.otherKey;
  }
  get key(): string {
    return fullKey(this);
  }
  /**
   * A copy of this element for the same bytes at `delta` bytes further in `text` (a side of a merge
   * whose base this element belongs to: {@link segmentLike}), with key index `keyIndex`.
   */
  movedTo(text: Uint8Array, delta: number, baseText: Uint8Array, keyIndex: number): FormElement {
    const el = new FormElement(text, this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta);
    el.otherKey = this.otherKey;
    el.keyIsDef = this.keyIsDef;
    el.keyIndex = keyIndex;
    el.isDef = this.isDef;
    el.nameHash = this.nameHash;
    el.endsWithComment = this.endsWithComment;
    el.cached = this.cached; // the same bytes read as the same (immutable) term
    el.decoded = this.decoded;
    if (this.nameSrc === baseText) {
      el.nameSrc = text;
      el.nameStart = this.nameStart + delta;
      el.nameEnd = this.nameEnd + delta;
    } else {
      el.nameSrc = this.nameSrc;
      el.nameStart = this.nameStart;
      el.nameEnd = this.nameEnd;
    }
    return el;
  }
}

/** A free-standing comment block. */
class CommentElement implements TextElement {
  readonly kind = 'comment' as const;
  keyBase = '';
  readonly keyIsDef = false;
  keyIndex = -1;
  readonly defName = undefined;
  readonly isDef = false;
  readonly nameSrc = undefined;
  readonly nameStart = 0;
  readonly nameEnd = 0;
  readonly nameHash = 0;
  position = -1;
  readonly term = undefined;
  readonly endsWithComment = true;
  constructor(
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
  ) {}
  get key(): string {
    return fullKey(this);
  }
  /** A copy `delta` bytes further, with key index `keyIndex` (see `FormElement.movedTo`). */
  movedTo(delta: number, keyIndex: number): CommentElement {
    const el = new CommentElement(this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta);
    el.keyBase = this.keyBase;
    el.keyIndex = keyIndex;
    return el;
  }
}

/** `key` from its parts (`''` without keys). */
function fullKey(e: { keyBase: string; keyIsDef: boolean; keyIndex: number }): string {
  if (e.keyIndex < 0) return '';
  return `${e.keyIsDef ? `def:${e.keyBase}` : e.keyBase}#${e.keyIndex}`;
}

const OPEN = 0x28;
const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Bytes that end a symbol (GENESIS_FACTS.md §1.2): whitespace, brackets, quote, string quote, comment. */
const DELIMITER = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d, 0x28, 0x29, 0x5b, 0x5d, 0x7b, 0x7d, 0x27, 0x22, SEMI]) DELIMITER[c] = 1;

/** The FNV-1a hash of the name {@link defNameEnd} last settled (computed in the same pass). */
let lastNameHash = 0;
/** Where that name starts. */
let lastNameStart = 0;

/**
 * The defined name of the form at `text[start, end)` read from its first tokens when it is plainly
 * `(def NAME …)`: its end offset (its start is left in `lastNameStart`, its {@link hashBytes}
 * hash in `lastNameHash`); -1 when the form is plainly not a definition of a symbol; -2
 * when the text does not settle it (the caller then reads the term).
 */
function defNameEnd(text: Uint8Array, start: number, end: number): number {
  if (text[start] !== OPEN || text[start + 1] !== 0x64 || text[start + 2] !== 0x65 || text[start + 3] !== 0x66) return -2;
  let p = start + 4;
  if (!isSpace(text[p])) return -2;
  while (p < end && isSpace(text[p])) p++;
  if (p >= end || text[p] === SEMI) return -2;
  const q0 = p;
  let h = 0x811c9dc5;
  for (; p < end; p++) {
    const b = text[p]!;
    if (DELIMITER[b] === 1) break;
    h = Math.imul(h ^ b, 0x01000193);
  }
  if (p === q0) return -1; // a list, vector, map, string or quote: not a symbol
  const c = text[q0]!;
  const c1 = text[q0 + 1];
  if ((c >= 0x30 && c <= 0x39) || (c === 0x2d && c1 !== undefined && c1 >= 0x30 && c1 <= 0x39)) return -1; // an integer
  if (c === 0x62 && c1 === 0x22) return -1; // a bytes literal
  const n = p - q0;
  // nil, true, false
  if (n === 3 && c === 0x6e && text[q0 + 1] === 0x69 && text[q0 + 2] === 0x6c) return -1;
  if (n === 4 && c === 0x74 && text[q0 + 1] === 0x72 && text[q0 + 2] === 0x75 && text[q0 + 3] === 0x65) return -1;
  if (n === 5 && c === 0x66 && text[q0 + 1] === 0x61 && text[q0 + 2] === 0x6c && text[q0 + 3] === 0x73 && text[q0 + 4] === 0x65) return -1;
  lastNameHash = h | 0;
  lastNameStart = q0;
  return p;
}

/** 32-bit FNV-1a hash of `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h | 0;
}

/**
 * A hash table from byte strings (a span of some byte array) to non-negative integers, without
 * decoding them to JS strings: definition names keyed by their UTF-8 bytes (issue #15).
 */
export class ByteKeyTable {
  /** The distinct byte arrays keys point into (a handful: the sides' texts). */
  private readonly sources: Uint8Array[] = [];
  /** Per slot: 1 + index into `sources`, 0 for an empty slot. */
  private src: Int32Array;
  private starts: Int32Array;
  private ends: Int32Array;
  private hashes: Int32Array;
  private values: Int32Array;
  private firsts: Int32Array;
  private size = 0;
  private mask: number;
  /** @param expected number of keys expected (the table grows past it). */
  constructor(expected = 16) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.mask = cap - 1;
    this.src = this.starts = this.ends = this.hashes = this.values = this.firsts = new Int32Array(0);
    this.allocate(cap);
  }
  /** Empty slot arrays of `cap` slots (a power of two). */
  private allocate(cap: number): void {
    this.mask = cap - 1;
    this.src = new Int32Array(cap);
    this.starts = new Int32Array(cap);
    this.ends = new Int32Array(cap);
    this.hashes = new Int32Array(cap);
    this.values = new Int32Array(cap);
    this.firsts = new Int32Array(cap);
  }
  private sourceId(src: Uint8Array): number {
    if (this.sources.length > 0 && this.sources[this.sources.length - 1] === src) return this.sources.length;
    const i = this.sources.indexOf(src);
    if (i >= 0) return i + 1;
    this.sources.push(src);
    return this.sources.length;
  }
  /** The slot of the key, or of the empty slot where it would go. */
  private slot(src: Uint8Array, start: number, end: number, hash: number): number {
    const n = end - start;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const id = this.src[i]!;
      if (id === 0) return i;
      if (this.hashes[i] !== hash || this.ends[i]! - this.starts[i]! !== n) continue;
      const k = this.sources[id - 1]!;
      const d = this.starts[i]! - start;
      let same = true;
      for (let p = start; p < end; p++) {
        if (k[p + d] !== src[p]) {
          same = false;
          break;
        }
      }
      if (same) return i;
    }
  }
  /** How many times {@link add} counted `src[start, end)` (hash `hash`), or -1 when never. */
  get(src: Uint8Array, start: number, end: number, hash: number): number {
    const i = this.slot(src, start, end, hash);
    return this.src[i] === 0 ? -1 : this.values[i]!;
  }
  /**
   * Counts one more occurrence of `src[start, end)`, the one at position `index`: returns how many
   * came before it (0 for the first, whose `index` {@link first} then returns).
   */
  add(src: Uint8Array, start: number, end: number, hash: number, index: number): number {
    const i = this.slot(src, start, end, hash);
    if (this.src[i] !== 0) return this.values[i]!++;
    this.insert(i, src, start, end, hash, 1, index);
    return 0;
  }
  /** The `index` of the first occurrence {@link add} counted of `src[start, end)`, or -1. */
  first(src: Uint8Array, start: number, end: number, hash: number): number {
    const i = this.slot(src, start, end, hash);
    return this.src[i] === 0 ? -1 : this.firsts[i]!;
  }
  private insert(i: number, src: Uint8Array, start: number, end: number, hash: number, value: number, first: number): void {
    this.src[i] = this.sourceId(src);
    this.starts[i] = start;
    this.ends[i] = end;
    this.hashes[i] = hash;
    this.values[i] = value;
    this.firsts[i] = first;
    if (++this.size * 2 > this.mask + 1) this.grow();
  }
  private grow(): void {
    const { src, starts, ends, hashes, values, firsts } = this;
    this.allocate((this.mask + 1) * 2);
    for (let j = 0; j < src.length; j++) {
      if (src[j] === 0) continue;
      let i = hashes[j]! & this.mask;
      while (this.src[i] !== 0) i = (i + 1) & this.mask;
      this.src[i] = src[j]!;
      this.starts[i] = starts[j]!;
      this.ends[i] = ends[j]!;
      this.hashes[i] = hashes[j]!;
      this.values[i] = values[j]!;
      this.firsts[i] = firsts[j]!;
    }
  }
}

const nameEncoder = new TextEncoder();

/** The `def` name of a raw top-level term `(def NAME …)`, if it has that shape. */
export function defName(term: Term): string | undefined {
  if (term.kind !== 'pair' || term.car.kind !== 'sym' || term.car.name !== 'def') return undefined;
  const items = listItems(term);
  if (!items || items.length < 2) return undefined;
  const name = items[1]!;
  return name.kind === 'sym' ? name.name : undefined;
}

/**
 * The alignment key of a form that is not a `(def NAME …)`: `form:` + its canonical print, or
 * `raw:` + the print of the term as read when it does not canonicalize (the merge does not need
 * canonical forms; GenesisCode tools will report such a form).
 */
export function contentKey(term: Term, ordinal = 0): string {
  try {
    return `form:${printTerm(canonicalizeForm(term, ordinal))}`;
  } catch {
    return `raw:${printTerm(term)}`;
  }
}

/**
 * Reads `text` and splits it into elements.
 * @param text LF-normalized UTF-8 without BOM.
 * @param deadline ms timestamp (`performance.now()` clock); throws `TimeoutError` after it.
 * @param keys false: elements get no alignment key (`key` is `''`) and non-def forms are not read,
 *   for re-reads that only compare kinds, spans and def names (the safety net; issue #15).
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

/** What the segmentation carries from one range of a text to the next. */
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

function newState(forms: number): SegmentState {
  return { elements: [], defCounts: new ByteKeyTable(forms), otherCounts: new Map(), otherFirst: new Map(), ordinal: 0 };
}

function finish(text: Uint8Array, st: SegmentState, keys: boolean): SegmentedModule {
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

function countKey(counts: Map<string, number>, base: string): number {
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
 * lines (issue #15).
 */
function segmentForms(
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
    const fast = defNameEnd(text, formStart, formEnd);
    if (fast >= 0) {
      el.isDef = true;
      el.nameSrc = text;
      el.nameStart = lastNameStart;
      el.nameEnd = fast;
      el.nameHash = lastNameHash;
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

/** Length of the common prefix of `a` and `b` (native comparisons in 4 KiB steps). */
function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  const A = Buffer.from(a.buffer, a.byteOffset, a.length);
  const B = Buffer.from(b.buffer, b.byteOffset, b.length);
  let p = 0;
  while (p + 4096 <= n && A.compare(B, p, p + 4096, p, p + 4096) === 0) p += 4096;
  while (p < n && a[p] === b[p]) p++;
  return p;
}

/** Length of the common suffix of `a` and `b`, at most `limit`. */
function commonSuffix(a: Uint8Array, b: Uint8Array, limit: number): number {
  const A = Buffer.from(a.buffer, a.byteOffset, a.length);
  const B = Buffer.from(b.buffer, b.byteOffset, b.length);
  const la = a.length;
  const lb = b.length;
  let s = 0;
  while (s + 4096 <= limit && A.compare(B, lb - s - 4096, lb - s, la - s - 4096, la - s) === 0) s += 4096;
  while (s < limit && a[la - 1 - s] === b[lb - 1 - s]) s++;
  return s;
}

/**
 * {@link segmentModule} of one side of a merge, given base's segmentation: exactly the same result
 * (keys included), but only the part of `text` that differs from base (between their common
 * prefix and suffix, widened to whole elements) is read. Elements in the common prefix are base's
 * own element objects; those in the common suffix are base's (same offsets) or copies moved by
 * the length difference. Issue #15 item 3: a merge reads one side whole and the other two only
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
    if (!lastIn || st.elements.length <= k || lastIn.kind !== want.kind || lastIn.end !== want.end + delta || lastIn.formStart !== want.formStart + delta || lastIn.formEnd !== want.formEnd + delta) {
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

/**
 * An unchanged run of base's elements that a reduced segmentation ({@link segmentReduced}) keeps
 * opaque: bytes all three sides share, aligned with itself by its key `run:<i>`, never read. Its
 * `kind` (`form`), `endsWithComment` and `formStart`/`formEnd` are those of its last element (a
 * form), as the render's boundary rules need them.
 */
class RunElement implements TextElement {
  readonly kind = 'form' as const;
  readonly keyIsDef = false;
  readonly defName = undefined;
  readonly isDef = false;
  readonly nameSrc = undefined;
  readonly nameStart = 0;
  readonly nameEnd = 0;
  readonly nameHash = 0;
  readonly keyIndex = 0;
  position = -1;
  constructor(
    public start: number,
    public end: number,
    public formStart: number,
    public formEnd: number,
    readonly endsWithComment: boolean,
    /** The run's number in the module (runs count from 0 in text order). */
    readonly run: number,
    /** Base's text and form bounds, and the run's start in base (to read its forms where asked). */
    readonly base: { text: Uint8Array; bounds: ArrayLike<number>; start: number },
  ) {}
  get keyBase(): string {
    return `run:${this.run}`;
  }
  get key(): string {
    return `run:${this.run}#0`;
  }
  get term(): Term | undefined {
    // The merge never reads a run (semantic checks that would need it give up on the reduction).
    throw new Error('internal: a run of unchanged elements has no single term');
  }
  /** The same run `delta` bytes further (a side whose change lies before it). */
  movedBy(delta: number): RunElement {
    return new RunElement(this.start + delta, this.end + delta, this.formStart + delta, this.formEnd + delta, this.endsWithComment, this.run, this.base);
  }
}

/**
 * True when some form of the run `e` satisfies `test`, reading only the forms that hold the UTF-8
 * bytes of `text` (so a run is read where a name occurs, not whole): the semantic pass's "does a
 * form of this side still mention NAME" (module.ts).
 */
export function runHasForm(e: TextElement, text: string, test: (term: Term) => boolean): boolean {
  if (!(e instanceof RunElement)) throw new Error('internal: not a run of a reduced segmentation');
  const { text: src, bounds, start } = e.base;
  const end = start + (e.end - e.start);
  const hay = Buffer.from(src.buffer, src.byteOffset, src.length);
  const needle = nameEncoder.encode(text);
  for (let q = hay.indexOf(needle, start); q !== -1 && q + needle.length <= end; ) {
    const f = formsEndingBy(bounds, q);
    if (f < bounds.length >> 1 && bounds[2 * f]! <= q) {
      // An occurrence inside form f: read it once, go on after it.
      if (test(readTerm(src.subarray(bounds[2 * f]!, bounds[2 * f + 1]!)))) return true;
      q = hay.indexOf(needle, bounds[2 * f + 1]!);
    } else q = hay.indexOf(needle, q + 1); // in a comment between forms
  }
  return false;
}

/** True when `e` is an opaque run of a reduced segmentation. */
export function isRun(e: TextElement): boolean {
  return e instanceof RunElement;
}

/** True when `e` and `f` are the same run of a reduced segmentation (on any side: the same bytes). */
export function sameRun(e: TextElement, f: TextElement): boolean {
  return e instanceof RunElement && f instanceof RunElement && e.run === f.run;
}

/**
 * A clean cut after a form: the end of the form's element (the form, or a comment on its last line)
 * and the first token after that line. Segmenting from `token` on, fresh, gives exactly the
 * elements a whole-text segmentation gives there: the line break means no comment after it joins
 * the form, and nothing is pending.
 */
interface Cut {
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
function cutAfter(text: Uint8Array, bounds: ArrayLike<number>, f: number): Cut | undefined {
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
function formsEndingBy(bounds: ArrayLike<number>, offset: number): number {
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
function formsStartingBefore(bounds: ArrayLike<number>, offset: number): number {
  let lo = 0;
  let hi = bounds.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bounds[2 * mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A window of base the reduced segmentation reads: `[start, end)`, both cut tokens (or 0 / the end). */
interface Window {
  start: number;
  end: number;
}

/** The three sides of a merge, segmented. */
export interface SegmentedSides {
  base: SegmentedModule;
  ours: SegmentedModule;
  theirs: SegmentedModule;
}

/**
 * Segments the three sides of a merge keeping every stretch of base that neither side changed as
 * one opaque element ({@link isRun}): only the windows around each side's change are split into
 * elements, so a merge of two small edits far apart does per-element work on those edits alone
 * (issue #15 item 3: a 1 MB merge). Base is scanned whole by the caller (`read`, so that it reads
 * as for {@link segmentModule}, which can reuse the scan); a side is read only in its windows.
 *
 * Why the merge of the reduced sides equals the merge of the whole ones (module.ts checks the rest
 * and falls back to the whole merge where it cannot tell): each of a side's changes (its common
 * prefix and suffix with base, and common stretches between found by {@link changeRanges}) lies
 * in a window of base, `[cut, cut)` between clean cuts ({@link Cut}), so the side's whole
 * segmentation is base's elements outside its windows (moved by its length changes before them)
 * and its windows read fresh (checked: a side's window must read and end with a form and a line
 * break, as base's does). The runs are
 * the same bytes on every side, in the same places, so each aligns with itself, is kept, keeps its
 * place in the order and its separators; a run behaves at its ends as its first and last elements
 * do. What could tie a window's element to a run's is a shared key: every key in a window (a
 * definition's name, another form's canonical print, a comment block's text) must occur in no run
 * of base, else the reduction is refused.
 * @param reduceAlways false: refused (undefined) when the windows hold more than half of base
 *   (nothing to gain), and a side's middle is split only from 8 KiB; true: reduced whenever it can
 *   be, and middles split at any size (tests).
 * @returns the reduced sides, or undefined when the texts do not allow a reduction (a side that does
 *   not read in its window, a shared key, no clean cut); the caller then segments them whole.
 * @throws TimeoutError after `deadline`.
 */
export function segmentReduced(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, read: FormBounds, deadline = Infinity, reduceAlways = false): SegmentedSides | undefined {
  const bounds = read.bounds;
  const nF = bounds.length >> 1;
  const n = base.length;
  if (nF === 0) return undefined;
  // Each side's changes as ranges of base, each widened to clean cuts.
  const windows: Window[] = [];
  const sideRanges: ChangeRange[][] = [];
  const sideWindows: Window[][] = [];
  for (const x of [ours, theirs]) {
    const ranges = changeRanges(x, base, bounds, reduceAlways ? 0 : RESYNC_FROM);
    const own: Window[] = [];
    for (let i = 0; i < ranges.length; i++) {
      const r = ranges[i]!;
      // Start: the last clean cut whose token is at or before the change (0 when none).
      let start = 0;
      for (let f = formsEndingBy(bounds, r.bStart) - 1; f >= 0; f--) {
        const c = cutAfter(base, bounds, f);
        if (c && c.clean && c.token <= r.bStart) {
          start = c.token;
          break;
        }
      }
      // End: the first cut whose token is at or after the change's end (the end of the text when none).
      let end = n;
      for (let f = Math.max(0, formsEndingBy(bounds, r.bEnd) - 1); f < nF; f++) {
        const c = cutAfter(base, bounds, f);
        if (c && c.token >= r.bEnd) {
          end = c.token;
          break;
        }
      }
      own.push({ start, end });
      windows.push({ start, end });
    }
    sideRanges.push(ranges);
    sideWindows.push(own);
  }
  // The tail after the last form's line (trailing comment blocks) is always read.
  const last = cutAfter(base, bounds, nF - 1);
  if (!last) throw new Error('internal: a token after the last form on its line');
  if (last.token < n) windows.push({ start: last.token, end: n });
  windows.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Window[] = [];
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    const top = merged[merged.length - 1];
    // Windows that overlap or touch are one (a run between two windows holds at least one token).
    if (top && w.start <= top.end) top.end = Math.max(top.end, w.end);
    else merged.push({ start: w.start, end: w.end });
  }
  // Per side, the length change inside each merged window (each change range lies in one).
  const deltas: Int32Array[] = [];
  for (let x = 0; x < 2; x++) {
    const d = new Int32Array(merged.length);
    const ranges = sideRanges[x]!;
    const own = sideWindows[x]!;
    for (let i = 0; i < ranges.length; i++) {
      const r = ranges[i]!;
      let k = 0;
      while (!(own[i]!.start >= merged[k]!.start && own[i]!.end <= merged[k]!.end)) k++;
      d[k]! += r.xEnd - r.xStart - (r.bEnd - r.bStart);
    }
    deltas.push(d);
  }
  let windowBytes = 0;
  for (let i = 0; i < merged.length; i++) windowBytes += merged[i]!.end - merged[i]!.start;
  if (!reduceAlways && windowBytes * 2 > n) return undefined;
  if (merged.length === 1 && merged[0]!.start === 0 && merged[0]!.end === n) return undefined;

  // Runs: the stretches between windows, as one opaque element each.
  interface Piece {
    run: RunElement | undefined;
    window: Window | undefined;
  }
  const layout: Piece[] = [];
  let at = 0;
  let runs = 0;
  const pushRun = (from: number, to: number): void => {
    // [from, to): from is 0 or a cut token, to a cut token or the end; it holds whole elements, the
    // last a form (to is a cut after it: its element's end).
    let first = from;
    while (first < to && isSpace(base[first])) first++;
    if (first >= to) return;
    const f = formsEndingBy(bounds, to) - 1; // the last form before `to`
    if (f < 0 || bounds[2 * f]! < first) throw new Error('internal: a run without a form');
    const c = cutAfter(base, bounds, f);
    if (!c || (to < n && c.token !== to)) throw new Error('internal: a run that does not end at a cut');
    const formStart = bounds[2 * f]!;
    const formEnd = bounds[2 * f + 1]!;
    const run = new RunElement(first, c.elemEnd, formStart, formEnd, c.elemEnd > formEnd, runs++, { text: base, bounds, start: first });
    layout.push({ run, window: undefined });
  };
  for (let i = 0; i < merged.length; i++) {
    const w = merged[i]!;
    if (w.start > at) pushRun(at, w.start);
    layout.push({ run: undefined, window: w });
    at = w.end;
  }
  if (at < n) pushRun(at, n);
  checkDeadline(deadline);

  // Each side: runs as they are (moved by the side's length changes before them), windows read
  // fresh with one key state per side (so key counts run across that side's windows).
  const sideOf = (text: Uint8Array, delta: Int32Array | undefined): SegmentedModule | undefined => {
    const st = newState(16);
    const elements = st.elements;
    let shift = 0; // the side's length change before the current piece
    let k = 0; // the current merged window
    for (let i = 0; i < layout.length; i++) {
      const piece = layout[i]!;
      if (piece.run) {
        if (!delta) {
          // Base: the run's index here (a side that reuses the object keeps it, as segmentLike's).
          piece.run.position = elements.length;
          elements.push(piece.run);
        } else if (shift !== 0) {
          const moved = piece.run.movedBy(shift);
          moved.position = elements.length;
          elements.push(moved);
        } else elements.push(piece.run);
        continue;
      }
      const w = piece.window!;
      // The window's bytes on this side: moved by the changes before it, through its own.
      const from = w.start + shift;
      if (delta) shift += delta[k]!;
      k++;
      const to = w.end + shift;
      if (from > to) return undefined;
      const range = text.subarray(from, to);
      let r: ReturnType<typeof scanFormBounds>;
      try {
        r = scanFormBounds(range);
      } catch {
        return undefined; // the whole segmentation reports the error at its offset
      }
      st.ordinal = formsStartingBefore(bounds, w.start);
      const before = elements.length;
      segmentForms(text, r.bounds, r.trailingStart, to, from, deadline, true, st);
      // The window must end as a cut does (a form, then a line break), unless it runs to the end.
      if (to < text.length) {
        const lastEl = elements.length > before ? elements[elements.length - 1]! : undefined;
        if (lastEl) {
          if (lastEl.kind !== 'form') return undefined;
          let lf = false;
          for (let q = lastEl.end; q < to; q++) {
            const b = text[q];
            if (b === LF) lf = true;
            else if (!isSpace(b)) return undefined;
          }
          if (!lf) return undefined;
        } else if (!onlySpace(text, from, to)) return undefined;
      }
    }
    return finish(text, st, true);
  };
  const B = sideOf(base, undefined);
  const O = B && sideOf(ours, deltas[0]);
  const T = O && sideOf(theirs, deltas[1]);
  if (!B || !O || !T) return undefined;
  // Every key of a window's element must occur in no run of base.
  if (!windowKeysApart([B, O, T], base, bounds, layout.filter((p) => p.run).map((p) => p.run!))) return undefined;
  return { base: B, ours: O, theirs: T };
}

/** A side's change: base's `[bStart, bEnd)` replaced by the side's `[xStart, xEnd)`. */
interface ChangeRange {
  bStart: number;
  bEnd: number;
  xStart: number;
  xEnd: number;
}

/** Bytes of base after a cut that must match the side to resynchronize there. */
const ANCHOR = 48;
/** Middles shorter than this many bytes are one change range (splitting them gains nothing). */
const RESYNC_FROM = 8192;
/** Cuts tried after a difference before the rest of the middle is taken as one range. */
const RESYNC_TRIES = 8;

/**
 * `x` as base with some stretches replaced, in order (empty when `x` is base): the common prefix and
 * suffix, and in between, when the middle is at least `resyncFrom` bytes long, stretches common
 * to both found by resynchronizing at base's cuts (the `ANCHOR` bytes after a cut are searched for
 * in `x` after the difference, and the common run from there is measured). Every byte outside the
 * ranges is the same on both (checked), so the decomposition is exact whatever anchors matched; a
 * side that edits the top and the bottom of a module gets two small ranges instead of one that
 * spans it.
 */
function changeRanges(x: Uint8Array, base: Uint8Array, bounds: ArrayLike<number>, resyncFrom: number): ChangeRange[] {
  const n = base.length;
  const nx = x.length;
  const p = commonPrefix(x, base);
  if (p === nx && p === n) return [];
  const s = commonSuffix(x, base, Math.min(nx, n) - p);
  const bLimit = n - s;
  const xLimit = nx - s;
  const hb = Buffer.from(base.buffer, base.byteOffset, base.length);
  const hx = Buffer.from(x.buffer, x.byteOffset, x.length);
  const nF = bounds.length >> 1;
  const ranges: ChangeRange[] = [];
  let bp = p;
  let xp = p;
  for (;;) {
    let resynced = false;
    if (bLimit - bp >= resyncFrom && xLimit - xp >= resyncFrom) {
      let tries = 0;
      for (let f = formsEndingBy(bounds, bp); f < nF && tries < RESYNC_TRIES; f++) {
        const c = cutAfter(base, bounds, f);
        if (!c || !c.clean || c.token <= bp) continue;
        if (c.token + ANCHOR > bLimit) break;
        tries++;
        const q = hx.indexOf(hb.subarray(c.token, c.token + ANCHOR), xp);
        if (q === -1 || q + ANCHOR > xLimit) continue;
        const m = commonRun(hb, c.token, hx, q, Math.min(bLimit - c.token, xLimit - q));
        ranges.push({ bStart: bp, bEnd: c.token, xStart: xp, xEnd: q });
        bp = c.token + m;
        xp = q + m;
        resynced = true;
        break;
      }
    }
    if (!resynced) {
      ranges.push({ bStart: bp, bEnd: bLimit, xStart: xp, xEnd: xLimit });
      return ranges;
    }
    if (bp >= bLimit && xp >= xLimit) return ranges;
  }
}

/** Length of the common run of `a[as…]` and `b[bs…]`, at most `limit` (native comparisons in 4 KiB steps). */
function commonRun(a: Buffer, as: number, b: Buffer, bs: number, limit: number): number {
  let m = 0;
  while (m + 4096 <= limit && a.compare(b, bs + m, bs + m + 4096, as + m, as + m + 4096) === 0) m += 4096;
  while (m < limit && a[as + m] === b[bs + m]) m++;
  return m;
}

/** True when `t[from, to)` is only whitespace. */
function onlySpace(t: Uint8Array, from: number, to: number): boolean {
  for (let q = from; q < to; q++) if (!isSpace(t[q])) return false;
  return true;
}

/** At most this many occurrences of a window's definition name in the runs are looked at (then the reduction is refused). */
const MAX_NAME_OCCURRENCES = 4096;

/**
 * True when no key of the sides' window elements occurs in a run of base (`runs`; base's forms
 * `bounds`): a definition's name is defined by no form in a run (every occurrence of its bytes in
 * a run, preceded by whitespace and followed by a delimiter, is looked up), a comment block's text
 * does not occur in a run at all (a conservative test), and another form's key is no run form's key
 * (those are computed only when a window holds such a form).
 */
function windowKeysApart(sides: readonly SegmentedModule[], base: Uint8Array, bounds: ArrayLike<number>, runs: readonly TextElement[]): boolean {
  const hay = Buffer.from(base.buffer, base.byteOffset, base.length);
  const checked = new ByteKeyTable(16);
  let runKeys: Set<string> | undefined;
  for (let s = 0; s < sides.length; s++) {
    const m = sides[s]!;
    const els = m.elements;
    for (let i = 0; i < els.length; i++) {
      const e = els[i]!;
      if (e instanceof RunElement) continue;
      if (e.kind === 'comment') {
        const needle = m.text.subarray(e.start, e.end);
        for (let r = 0; r < runs.length; r++) {
          const run = runs[r]!;
          const q = hay.indexOf(needle, run.start);
          if (q !== -1 && q + needle.length <= run.end) return false;
        }
      } else if (e.isDef) {
        if (checked.get(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash) >= 0) continue;
        checked.add(e.nameSrc!, e.nameStart, e.nameEnd, e.nameHash, 0);
        if (definedInRuns(hay, bounds, runs, e.nameSrc!.subarray(e.nameStart, e.nameEnd))) return false;
      } else {
        runKeys ??= runFormKeys(base, bounds, runs);
        if (runKeys.has(e.keyBase)) return false;
      }
    }
  }
  return true;
}

/** True when a form in one of `runs` may be `(def NAME …)` for the name bytes `name` (see windowKeysApart). */
function definedInRuns(hay: Buffer, bounds: ArrayLike<number>, runs: readonly TextElement[], name: Uint8Array): boolean {
  const n = hay.length;
  let seen = 0;
  let decoded: string | undefined;
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r]!;
    for (let q = hay.indexOf(name, run.start); q !== -1 && q + name.length <= run.end; q = hay.indexOf(name, q + 1)) {
      const after = q + name.length;
      if (after < n && DELIMITER[hay[after]!] !== 1) continue;
      if (q === 0 || !isSpace(hay[q - 1])) continue;
      if (++seen > MAX_NAME_OCCURRENCES) return true;
      const f = formsEndingBy(bounds, q);
      if (f >= bounds.length >> 1 || bounds[2 * f]! > q) continue; // in the trivia
      const start = bounds[2 * f]!;
      const end = bounds[2 * f + 1]!;
      const fast = defNameEnd(hay, start, end);
      if (fast >= 0) {
        if (lastNameStart === q && fast === after) return true;
      } else if (fast === -2) {
        const d = defName(readTerm(hay.subarray(start, end)));
        decoded ??= decodeSlice(name, 0, name.length);
        if (d === decoded) return true;
      }
    }
  }
  return false;
}

/** The keys of the forms in `runs` that are not definitions (contentKey, as segmentForms gives them). */
function runFormKeys(base: Uint8Array, bounds: ArrayLike<number>, runs: readonly TextElement[]): Set<string> {
  const keys = new Set<string>();
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r]!;
    for (let f = formsEndingBy(bounds, run.start); f < bounds.length >> 1 && bounds[2 * f + 1]! <= run.end; f++) {
      const start = bounds[2 * f]!;
      const end = bounds[2 * f + 1]!;
      const fast = defNameEnd(base, start, end);
      if (fast >= 0) continue;
      const term = readTerm(base.subarray(start, end));
      if (fast === -2 && defName(term) !== undefined) continue;
      keys.add(contentKey(term, f));
    }
  }
  return keys;
}
