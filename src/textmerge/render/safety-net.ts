/**
 * Step 6 of the text merge, the safety net: the result (and, when it has conflicts, both "take
 * ours" and "take theirs" readings of it) must split into exactly the decided elements, byte for
 * byte; otherwise `merge/text/unsafe` is thrown and the driver falls back to the line merge. The
 * render proves it cheaply where it can ({@link CheapProof}: runs of one side's consecutive
 * elements re-read as that side did; every other element is read on its own and every other
 * boundary must pass {@link cleanBoundary}); a reading it cannot prove is re-read whole
 * ({@link verifyElements}).
 */
import { GcError } from '../../util/errors.js';
import { isTimeout } from '../common/deadline.js';
import { body, type SideModule } from '../align/merge-records.js';
import { concatBytes, sameBytes } from '../common/diff3.js';
import type { SegmentedModule } from '../segment/element.js';
import type { Out, RenderMode } from './element-output.js';
import { NeedsWholeMerge } from '../segment/reduced-merge-rules.js';
import { unsafe, type Side, type TextPiece } from '../common/result.js';
import { segmentModule } from '../segment/segments.js';
import { countLf, type Sep } from './separators.js';

const LF = 0x0a;
const SEMI = 0x3b;

/** An element the render emitted outside conflict markers: its body bytes and kind. */
export interface RenderedElement {
  bytes: Uint8Array;
  kind: 'form' | 'comment';
}

/** A reading of the result as the safety net checks it. */
export interface Reading {
  pieces: TextPiece[];
  /** The elements outside markers, in order (only when rendered with `collect`). */
  elements: RenderedElement[];
  /**
   * True when the cheap safety net proved that the text re-reads as exactly the decided elements:
   * every element is a verbatim element of a side or reads alone as one element of its kind, and
   * every boundary that is not one side's own (same side, consecutive, its separator) passes
   * {@link cleanBoundary}. False: not proven, the full re-read decides.
   */
  proven: boolean;
}

/** True when `t[start, end)` is only whitespace (the reader's: space, tab, LF, CR). */
export function onlyWhitespace(t: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = t[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

const CLOSERS = new Set([0x29, 0x5d, 0x7d]);

/**
 * The cheap safety net's boundary rule: true when an element of kind `prevKind` (ending in a `;`
 * comment when `prevEndsWithComment`, last byte `prevLast`), then the whitespace `sep` (`lfs` line
 * breaks, `sepLength` bytes), then an element starting with byte `nextFirst`, re-read as those two
 * elements whatever came before and after: segments.ts joins a comment block to the comment or
 * form on the next line, and a `;` comment on a form's last line to that form; tokens need a
 * delimiter between them. False means "not proven" (the full re-read decides).
 * @internal exported for tests (module.ts re-exports it, and the package entry re-exports module.ts).
 */
export function cleanBoundary(
  prevKind: 'form' | 'comment',
  prevEndsWithComment: boolean,
  prevLast: number,
  lfs: number,
  sepLength: number,
  nextFirst: number,
  sepFirst: number,
): boolean {
  // A `;` comment runs to the end of its line: the separator must start with that line break.
  if (prevKind === 'comment' || prevEndsWithComment) return sepFirst === LF && lfs >= (prevKind === 'comment' ? 2 : 1);
  if (nextFirst === SEMI) return lfs >= 1;
  return sepLength > 0 || CLOSERS.has(prevLast);
}

/** One emitted element, as the cheap safety net needs it. */
interface Emitted {
  kind: 'form' | 'comment';
  /** Verbatim: element `index` of `side`; otherwise `bytes`. */
  side: Side | undefined;
  index: number;
  bytes: Uint8Array | undefined;
  endsWithComment: boolean;
  first: number;
  last: number;
}

function blank(): Emitted {
  return { kind: 'form', side: undefined, index: -1, bytes: undefined, endsWithComment: false, first: -1, last: -1 };
}

/**
 * The cheap proof of one render, fed the elements and separators in the order emitted: `proven`
 * stays true while every boundary and every element that is not a verbatim run of one side is
 * proven to read back as decided; with `collect`, `elements` lists what was emitted outside markers.
 */
export class CheapProof {
  proven = true;
  readonly elements: RenderedElement[] = [];
  // The element emitted last (outside markers), for the boundary rule. Two records reused in turn:
  // this runs once per element.
  private last: Emitted | undefined;
  private spare: Emitted = blank();

  constructor(
    private readonly sides: Record<Side, SideModule>,
    private readonly deadline: number,
    private readonly collect: boolean,
    /** The bytes of a separator. */
    private readonly seps: { text(s: Sep): Uint8Array },
  ) {}

  /** Not proven unless `text` (a lead or trail) is only whitespace. */
  whitespace(text: Uint8Array): void {
    if (!onlyWhitespace(text, 0, text.length)) this.proven = false;
  }

  /** A conflict's markers: the readings of the result are checked instead. */
  conflict(): void {
    this.last = undefined;
    this.proven = false;
  }

  /** The element `out` emitted after the separator `sep` (none before the first). */
  element(out: Out, sep: Sep | undefined): void {
    const e = this.spare;
    const sides = this.sides;
    if (out.side !== undefined) {
      const s = sides[out.side].m;
      const el = s.elements[out.index]!;
      e.kind = el.kind;
      e.side = out.side;
      e.index = out.index;
      e.bytes = undefined;
      e.endsWithComment = el.endsWithComment;
      e.first = s.text[el.start]!;
      e.last = s.text[el.end - 1]!;
    } else {
      const bytes = out.bytes!;
      e.kind = out.elKind;
      e.side = undefined;
      e.index = -1;
      e.bytes = bytes;
      e.endsWithComment = this.readsAlone(bytes, out.elKind);
      e.first = bytes[0] ?? -1;
      e.last = bytes[bytes.length - 1] ?? -1;
    }
    const last = this.last;
    if (last && sep && this.proven) {
      // A run of one side's consecutive elements with that side's separator re-reads as that side did.
      const verbatim =
        last.side !== undefined &&
        e.side === last.side &&
        e.index === last.index + 1 &&
        sep.side === e.side &&
        sep.start === sides[e.side].m.elements[e.index - 1]!.end &&
        sep.end === sides[e.side].m.elements[e.index]!.start;
      if (!verbatim) {
        const text = this.seps.text(sep);
        this.proven =
          onlyWhitespace(text, 0, text.length) && cleanBoundary(last.kind, last.endsWithComment, last.last, countLf(text), text.length, e.first, text[0] ?? -1);
      }
    }
    this.spare = last ?? blank();
    this.last = e;
    if (this.collect) this.elements.push({ bytes: out.side !== undefined ? body(sides[out.side], out.index) : out.bytes!, kind: out.elKind });
  }

  /**
   * Bytes that are not a verbatim element of a side must read as exactly one element of `kind` on
   * their own (else not proven). Returns whether that element ends with a comment.
   */
  private readsAlone(bytes: Uint8Array, kind: 'form' | 'comment'): boolean {
    try {
      const seg = segmentModule(bytes, this.deadline, false);
      const only = seg.elements.length === 1 ? seg.elements[0]! : undefined;
      if (!only || only.start !== 0 || only.end !== bytes.length || only.kind !== kind) this.proven = false;
      else return only.endsWithComment;
    } catch (error) {
      if (!(error instanceof GcError) || isTimeout(error)) throw error;
      this.proven = false;
    }
    return false;
  }
}

/**
 * Re-reads `text` and checks that it splits into exactly the decided elements: same kinds and same
 * body bytes (so no comment attached to a different form, no forms fused or split). Identical bytes
 * between identical element boundaries read as identical forms, which is stricter than equal
 * canonical forms.
 */
export function verifyElements(text: Uint8Array, expected: readonly RenderedElement[], what: string, deadline: number): void {
  let seg: SegmentedModule;
  try {
    seg = segmentModule(text, deadline, false);
  } catch (error) {
    if (error instanceof GcError && !isTimeout(error)) throw unsafe(`${what} does not read back: ${error.message}`);
    throw error;
  }
  if (seg.elements.length !== expected.length) {
    throw unsafe(`${what} reads back as ${seg.elements.length} elements, expected ${expected.length}`);
  }
  for (let i = 0; i < expected.length; i++) {
    const e = seg.elements[i]!;
    const want = expected[i]!;
    // Same kind and same bytes at the same element boundaries: the form reads as the same term.
    if (e.kind !== want.kind || !sameBytes(text.subarray(e.start, e.end), want.bytes)) {
      throw unsafe(`${what}: element ${i} does not read back as the merged text`);
    }
  }
}

/**
 * Checks the readings of a rendered result: the result itself when it has no conflicts, else ours'
 * and theirs' readings of it (`renderAs(mode, collect)` renders one). A reading the cheap proof did
 * not settle is re-read whole; in a reduced merge it hands over to the whole merge instead (runs
 * hide the elements a full re-read compares). `strict` (tests): proven readings are re-read too, and
 * a plain Error is thrown when the full re-read rejects one the cheap proof accepted.
 * @returns how many readings were re-read whole because the cheap proof did not settle them.
 * @throws GcError `merge/text/unsafe` when a reading does not re-read as decided; NeedsWholeMerge.
 */
export function checkReadings(
  real: Reading & { conflicts: readonly unknown[] },
  renderAs: (mode: RenderMode, collect: boolean) => Reading,
  reduced: boolean,
  strict: boolean,
  deadline: number,
): number {
  let fullRereads = 0;
  const check = (mode: RenderMode, what: string, first: Reading | undefined): void => {
    const r = first ?? renderAs(mode, false);
    if (reduced) {
      if (!r.proven) throw new NeedsWholeMerge();
      return;
    }
    if (r.proven && !strict) return;
    const full = renderAs(mode, true);
    if (r.proven) {
      try {
        verifyElements(concatBytes(full.pieces.map((p) => p.bytes)), full.elements, what, deadline);
      } catch (error) {
        throw new Error(`the cheap safety net proved ${what}, the full re-read rejects it: ${(error as Error).message}`);
      }
      return;
    }
    fullRereads++;
    verifyElements(concatBytes(full.pieces.map((p) => p.bytes)), full.elements, what, deadline);
  };
  if (real.conflicts.length === 0) check('markers', 'result', real);
  else {
    check('ours', "ours' reading of the result", undefined);
    check('theirs', "theirs' reading of the result", undefined);
  }
  return fullRereads;
}
