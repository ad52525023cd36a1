/**
 * Alignment keys of elements: a definition's name read off its bytes with its FNV-1a hash, the
 * content key of other forms, and the hash table that keys definitions by their names' bytes.
 */
import { canonicalizeForm } from '../../coreform/canon.js';
import { printTerm } from '../../coreform/print.js';
import type { Term } from '../../coreform/term.js';

const SEMI = 0x3b;
const OPEN = 0x28;

/** True for the reader's whitespace bytes: space, tab, LF, CR. */
export const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Bytes that end a symbol (docs/reference/coreform.md §1.2): whitespace, brackets, quote, string quote, comment. */
export const DELIMITER = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d, 0x28, 0x29, 0x5b, 0x5d, 0x7b, 0x7d, 0x27, 0x22, SEMI]) DELIMITER[c] = 1;

/**
 * Reads the defined name of a form off its first tokens when it is plainly `(def NAME …)`, without
 * decoding it; `start` and `hash` hold the name last found. One scanner serves one segmentation
 * (the fields are its result, so the per-form path allocates nothing).
 */
export class DefNameScanner {
  /** Where the name {@link scan} last found starts. */
  start = 0;
  /** That name's {@link hashBytes} hash (computed in the same pass). */
  hash = 0;

  /**
   * The defined name of the form at `text[start, end)` read from its first tokens when it is plainly
   * `(def NAME …)`: its end offset (its start is left in `start`, its {@link hashBytes} hash in
   * `hash`); -1 when the form is plainly not a definition of a symbol; -2
   * when the text does not settle it (the caller then reads the term).
   */
  scan(text: Uint8Array, start: number, end: number): number {
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
    this.hash = h | 0;
    this.start = q0;
    return p;
  }
}

/** 32-bit FNV-1a hash of `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h | 0;
}

/**
 * A hash table from byte strings (a span of some byte array) to non-negative integers, without
 * decoding them to JS strings: definition names keyed by their UTF-8 bytes.
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
