/**
 * The separators the render emits: the whitespace between two elements is taken from a side where
 * the two were neighbours (three-way merged when both sides have it), else from either element's
 * side, else the module's most common line-breaking separator; then adjusted so the text reads as
 * the decided elements (a comment never swallows what follows, markers start lines).
 */
import type { SideModule } from '../align/merge-records.js';
import { concatBytes } from '../common/diff3.js';
import { separatorBefore } from '../segment/element.js';
import { firstByte, type Out, type RenderContext } from './element-output.js';
import { NeedsWholeMerge } from '../segment/reduced-merge-rules.js';
import type { Side } from '../common/result.js';
import type { SideOrder } from './side-order.js';

const LF = 0x0a;
const SEMI = 0x3b;
/** One line break. */
export const NEWLINE = new Uint8Array([LF]);
const BLANK_LINE = new Uint8Array([LF, LF]);
const EMPTY = new Uint8Array(0);

/** A separator the render emits: a span of a side's text, or bytes of its own. */
export interface Sep {
  /** The side whose text `[start, end)` it is, or undefined for `bytes`. */
  side: Side | undefined;
  start: number;
  end: number;
  bytes: Uint8Array | undefined;
}

/** A separator of its own bytes. */
export function ownSep(bytes: Uint8Array): Sep {
  return { side: undefined, start: 0, end: 0, bytes };
}

/** True when `a[as, ae)` and `b[bs, be)` hold the same bytes (compared in place). */
export function sameSpan(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  const d = bs - as;
  for (let p = as; p < ae; p++) if (a[p] !== b[p + d]) return false;
  return true;
}

/** LF bytes in `t[start, end)`. */
export function countLfIn(t: Uint8Array, start: number, end: number): number {
  // Separators are a few bytes: a plain loop beats a native search's call cost.
  let n = 0;
  for (let i = start; i < end; i++) if (t[i] === LF) n++;
  return n;
}

/** LF bytes in `b`. */
export function countLf(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) if (b[i] === LF) n++;
  return n;
}

function hasLf(b: Uint8Array): boolean {
  return b.indexOf(LF) !== -1;
}

/**
 * The separator used between two elements that were neighbours nowhere and have no separator of
 * their own: the most frequent line-breaking separator of ours, else theirs, else base, else one
 * blank line (the canonical printer's layout, docs/reference/coreform.md §1.5).
 */
function commonSeparator(sides: readonly SideModule[]): Uint8Array {
  for (const s of sides) {
    const counts = new Map<string, { n: number; bytes: Uint8Array }>();
    for (let i = 1; i < s.m.elements.length; i++) {
      const span = separatorBefore(s.m, i);
      const bytes = s.m.text.subarray(span.start, span.end);
      if (!hasLf(bytes)) continue;
      const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { n: 1, bytes });
    }
    let best: { n: number; bytes: Uint8Array } | undefined;
    for (const c of counts.values()) if (!best || c.n > best.n) best = c;
    if (best) return best.bytes;
  }
  return BLANK_LINE;
}

type Span = { start: number; end: number };

/** Chooses the separators of one render (see the file comment). */
export class Separators {
  private readonly sides: Record<Side, SideModule>;
  private readonly orders: Record<Side, SideOrder>;
  /** The most common separator, found when first needed. */
  private defaultSep: Uint8Array | undefined;
  /** The record {@link between} reuses when both sides have the two as neighbours. */
  private readonly shared: Sep = { side: undefined, start: 0, end: 0, bytes: EMPTY };

  constructor(private readonly ctx: RenderContext) {
    this.sides = { base: ctx.B, ours: ctx.O, theirs: ctx.T };
    this.orders = { base: ctx.bOrder, ours: ctx.oOrder, theirs: ctx.tOrder };
  }

  /** The bytes of `s`. */
  text(s: Sep): Uint8Array {
    return s.side !== undefined ? this.sides[s.side].m.text.subarray(s.start, s.end) : s.bytes!;
  }

  /** The line breaks in `s`. */
  lfs(s: Sep): number {
    return s.side !== undefined ? countLfIn(this.sides[s.side].m.text, s.start, s.end) : countLf(s.bytes!);
  }

  /** The whitespace before the first element (three-way merged). */
  lead(): Sep {
    const leadSpan = (s: SideModule): Span | undefined => (s.m.elements.length > 0 ? separatorBefore(s.m, 0) : { start: 0, end: 0 });
    return this.mergeSpans(leadSpan(this.ctx.B), leadSpan(this.ctx.O), leadSpan(this.ctx.T));
  }

  /** The whitespace after the last element (three-way merged); `afterConflict`: it must start a line. */
  trail(afterConflict: boolean): Sep {
    const trailSpan = (s: SideModule): Span => ({ start: s.m.trailStart, end: s.m.text.length });
    const trail = this.mergeSpans(trailSpan(this.ctx.B), trailSpan(this.ctx.O), trailSpan(this.ctx.T));
    return afterConflict && this.lfs(trail) === 0 ? ownSep(concatBytes([NEWLINE, this.text(trail)])) : trail;
  }

  /**
   * The separator between aligned elements `p` and `c` (rendered as `pOut`, `cOut`). Not neighbours
   * anywhere: the blank lines `c` had before it on its side, or `p` after it, or the most common
   * separator (a reduced merge cannot count that: NeedsWholeMerge).
   */
  between(p: number, c: number, pOut: Out, cOut: Out): Sep {
    const { ctx, sides, orders } = this;
    const { O, T, B } = ctx;
    const ao = ctx.oOrder.adjacent(p, c);
    const at = ctx.tOrder.adjacent(p, c);
    const ab = ctx.bOrder.adjacent(p, c);
    let sep: Sep;
    if (ao && at) {
      // Both sides have them as neighbours (the common case): the separators compared in place,
      // ours unless only theirs changed it; one reused record, no spans allocated.
      const io = ctx.oOrder.indexOf(p);
      const it = ctx.tOrder.indexOf(p);
      const os = O.m.elements[io]!.end;
      const oe = O.m.elements[io + 1]!.start;
      const ts = T.m.elements[it]!.end;
      const te = T.m.elements[it + 1]!.start;
      let takeTheirs: boolean;
      if (sameSpan(O.m.text, os, oe, T.m.text, ts, te)) takeTheirs = ctx.prefer === 'theirs';
      else if (ab) {
        const ib = ctx.bOrder.indexOf(p);
        takeTheirs = sameSpan(O.m.text, os, oe, B.m.text, B.m.elements[ib]!.end, B.m.elements[ib + 1]!.start);
      } else takeTheirs = false;
      const shared = this.shared;
      sep = shared;
      shared.side = takeTheirs ? 'theirs' : 'ours';
      shared.start = takeTheirs ? ts : os;
      shared.end = takeTheirs ? te : oe;
      shared.bytes = undefined;
    } else if (ao) sep = spanSep('ours', ctx.oOrder.sepAfter(p)!);
    else if (at) sep = spanSep('theirs', ctx.tOrder.sepAfter(p)!);
    else if (ab) sep = spanSep('base', ctx.bOrder.sepAfter(p)!);
    else {
      // Not neighbours anywhere: the blank lines the element had before it on its side, or after
      // its predecessor, or one line break.
      const before = orders[cOut.src].sepBefore(c);
      const after = orders[pOut.src].sepAfter(p);
      if (before && countLfIn(sides[cOut.src].m.text, before.start, before.end) > 0) sep = spanSep(cOut.src, before);
      else if (after && countLfIn(sides[pOut.src].m.text, after.start, after.end) > 0) sep = spanSep(pOut.src, after);
      else {
        if (ctx.reduced) throw new NeedsWholeMerge(); // the most common separator counts every element's
        sep = ownSep((this.defaultSep ??= commonSeparator([O, T, B])));
      }
    }
    // Keep the reading of the text: a free comment block stays free (a blank line after it), a
    // comment never swallows what follows, a comment never joins the previous line, markers start lines.
    const lfs = this.lfs(sep);
    if (pOut.elKind === 'comment' && !pOut.conflict && lfs < 2) sep = ownSep(BLANK_LINE);
    else if (lfs === 0 && (pOut.endsWithComment || pOut.conflict || cOut.conflict || firstByte(sides, cOut) === SEMI)) sep = ownSep(NEWLINE);
    return sep;
  }

  /** Three-way value merge of one separator: ours unless only theirs changed it. */
  private mergeSpans(b: Span | undefined, o: Span | undefined, t: Span | undefined): Sep {
    const { B, O, T } = this.ctx;
    if (o && t && sameSpan(O.m.text, o.start, o.end, T.m.text, t.start, t.end)) return this.ctx.prefer === 'theirs' ? spanSep('theirs', t) : spanSep('ours', o);
    if (o && t && b && sameSpan(O.m.text, o.start, o.end, B.m.text, b.start, b.end)) return spanSep('theirs', t);
    return o ? spanSep('ours', o) : t ? spanSep('theirs', t) : b ? spanSep('base', b) : ownSep(EMPTY);
  }
}

function spanSep(side: Side, span: Span): Sep {
  return { side, start: span.start, end: span.end, bytes: undefined };
}
