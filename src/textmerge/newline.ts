/**
 * Line endings and the UTF-8 BOM of a merge input: infer a file's style, normalize it to LF for the
 * merge, restore it afterwards (the mergiraf `newline.rs` concept).
 *
 * Everything here works on UTF-8 bytes (`Uint8Array`); offsets are 0-based byte offsets. The merge
 * runs on "normalized" text: no BOM, every CRLF and every lone CR turned into LF. The output style
 * ({@link chooseOutputStyle}) is ours' line endings and BOM, or theirs' when only theirs changed
 * them (so merging (base, base, x) gives x byte for byte); lines copied unchanged from a side with
 * mixed endings keep their own endings ({@link restorePiece}), so untouched lines come out byte for
 * byte. Whether the file ends in a newline is ordinary text (the whitespace after the last form)
 * and is merged with it. Implements docs/reference/git-merge-driver.md "Inputs that broke other drivers"
 * (mergiraf #581 CRLF, #133/#143/#149 final newline).
 */

/** A pure line-ending convention. */
export type LineEnding = 'lf' | 'crlf' | 'cr';

/**
 * The line-ending kind of a whole file: one pure convention, `mixed` when more than one occurs, or
 * `none` when the file has no line break at all.
 */
export type LineEndingKind = LineEnding | 'mixed' | 'none';

/** A side of a merge after {@link normalizeSide}. */
export interface NormalizedSide {
  /** The input bytes without a leading BOM and with every line break turned into LF. */
  text: Uint8Array;
  /** The input bytes without a leading BOM, line breaks untouched. */
  raw: Uint8Array;
  /** True when the input started with the UTF-8 BOM `EF BB BF`. */
  bom: boolean;
  /** The file's line-ending kind. */
  kind: LineEndingKind;
  /** The most frequent line ending (ties: LF, then CRLF, then CR); `lf` when there is none. */
  dominant: LineEnding;
  /**
   * Only for `mixed` files: `rawOffset[i]` is the offset in `raw` of the byte that became
   * normalized byte `i`; `rawOffset[text.length] = raw.length`. Undefined for pure files, whose
   * normalization {@link restoreNewlines} undoes exactly.
   */
  rawOffset: Int32Array | undefined;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * The first index of byte `value` in `bytes` at or after `from`, or -1: a native search (memchr),
 * which over a whole module is ~30× faster than `Uint8Array.prototype.indexOf`.
 */
export function indexOfByte(bytes: Uint8Array, value: number, from = 0): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(value, from);
}

/** True when `bytes` starts with the UTF-8 byte order mark `EF BB BF`. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Counts of each line ending in `bytes` (a CRLF counts once, as CRLF). */
export function countLineEndings(bytes: Uint8Array): { lf: number; crlf: number; cr: number } {
  let lf = 0;
  let crlf = 0;
  let cr = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === LF) lf++;
    else if (c === CR) {
      if (bytes[i + 1] === LF) {
        crlf++;
        i++;
      } else cr++;
    }
  }
  return { lf, crlf, cr };
}

/** The line-ending kind and dominant ending of `bytes` (see {@link LineEndingKind}). */
export function detectLineEndings(bytes: Uint8Array): { kind: LineEndingKind; dominant: LineEnding } {
  // Fast path (native scans): no CR at all is the common case.
  if (indexOfByte(bytes, CR) === -1) return { kind: indexOfByte(bytes, LF) === -1 ? 'none' : 'lf', dominant: 'lf' };
  const { lf, crlf, cr } = countLineEndings(bytes);
  const present = (lf > 0 ? 1 : 0) + (crlf > 0 ? 1 : 0) + (cr > 0 ? 1 : 0);
  let dominant: LineEnding = 'lf';
  if (crlf > lf && crlf >= cr) dominant = 'crlf';
  else if (cr > lf && cr > crlf) dominant = 'cr';
  if (present === 0) return { kind: 'none', dominant };
  if (present > 1) return { kind: 'mixed', dominant };
  return { kind: lf > 0 ? 'lf' : crlf > 0 ? 'crlf' : 'cr', dominant };
}

/**
 * Strips the BOM and turns every CRLF and lone CR into LF.
 * @param bytes one merge input as git handed it over.
 */
export function normalizeSide(bytes: Uint8Array): NormalizedSide {
  const bom = hasBom(bytes);
  const raw = bom ? bytes.subarray(3) : bytes;
  const { kind, dominant } = detectLineEndings(raw);
  if (kind === 'lf' || kind === 'none') return { text: raw, raw, bom, kind, dominant, rawOffset: undefined };
  const out = new Uint8Array(raw.length);
  const map = kind === 'mixed' ? new Int32Array(raw.length + 1) : undefined;
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (map) map[n] = i;
    if (c === CR) {
      out[n++] = LF;
      if (raw[i + 1] === LF) i++;
    } else out[n++] = c;
  }
  if (map) map[n] = raw.length;
  return { text: out.subarray(0, n), raw, bom, kind, dominant, rawOffset: map ? map.subarray(0, n + 1) : undefined };
}

/**
 * Replaces every LF of LF-normalized `text` by `eol`. The identity for `lf`.
 * @param text LF-only bytes; @param eol the ending to write.
 */
export function restoreNewlines(text: Uint8Array, eol: LineEnding): Uint8Array {
  if (eol === 'lf') return text;
  let count = 0;
  for (let i = 0; i < text.length; i++) if (text[i] === LF) count++;
  if (count === 0) return text;
  if (eol === 'cr') {
    const out = Uint8Array.from(text);
    for (let i = 0; i < out.length; i++) if (out[i] === LF) out[i] = CR;
    return out;
  }
  const out = new Uint8Array(text.length + count);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === LF) out[n++] = CR;
    out[n++] = c;
  }
  return out;
}

/**
 * Merges a file-level property three-way (v0.1 rules 1–3 applied to a
 * value): ours unless only theirs changed it.
 */
export function mergeProperty<T>(base: T, ours: T, theirs: T): T {
  return ours === base ? theirs : ours;
}

/** The output style chosen by {@link chooseOutputStyle}. */
export interface OutputStyle {
  /** Which side's line endings the result follows; that side's untouched bytes are copied raw. */
  side: 'ours' | 'theirs';
  /** The ending written for every line that does not come from `side` unchanged. */
  eol: LineEnding;
  /** Whether the result starts with a BOM. */
  bom: boolean;
  /** True when `side` has mixed line endings: unchanged runs of any mixed side keep their raw bytes. */
  mixed: boolean;
}

/**
 * Picks the result's line endings and BOM: ours' by default ("mixed inputs follow ours"), theirs'
 * when only theirs changed the file's convention (so that merging (base, base, x) gives x byte for
 * byte). A side without any line break does not set the convention.
 */
export function chooseOutputStyle(base: NormalizedSide, ours: NormalizedSide, theirs: NormalizedSide): OutputStyle {
  const bom = mergeProperty(base.bom, ours.bom, theirs.bom);
  const oursChanged = ours.kind !== base.kind && ours.kind !== 'none';
  const theirsChanged = theirs.kind !== base.kind && theirs.kind !== 'none';
  let side: 'ours' | 'theirs' = 'ours';
  if ((ours.kind === 'none' || !oursChanged) && theirsChanged) side = 'theirs';
  else if (ours.kind === 'none' && theirs.kind !== 'none') side = 'theirs';
  let eol = side === 'ours' ? ours.dominant : theirs.dominant;
  if (ours.kind === 'none' && theirs.kind === 'none') eol = base.kind === 'none' ? 'lf' : base.dominant;
  return { side, eol, bom, mixed: (side === 'ours' ? ours.kind : theirs.kind) === 'mixed' };
}

/**
 * Converts one piece of LF-normalized output back to bytes in the output style. When the piece is
 * an unchanged run `[start, end)` of the normalized text of a side with mixed endings, and it is
 * the style's own side or the style is mixed too, that side's raw bytes are copied so that they
 * come out exactly as they went in; every other piece gets the style's ending on every line.
 * @param piece normalized bytes; @param from the side the piece was copied from and its normalized
 *   offsets, if any.
 */
export function restorePiece(
  piece: Uint8Array,
  style: OutputStyle,
  from: { side: NormalizedSide; isStyleSide: boolean; start: number; end: number } | undefined,
): Uint8Array {
  if (from && (from.isStyleSide || style.mixed) && from.side.rawOffset) {
    const map = from.side.rawOffset;
    return from.side.raw.subarray(map[from.start]!, map[from.end]!);
  }
  return restoreNewlines(piece, style.eol);
}

/** The UTF-8 BOM bytes. */
export const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
