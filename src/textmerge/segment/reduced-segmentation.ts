/**
 * The reduced segmentation of a merge's three sides: only the windows around each side's changes
 * are split into elements; every stretch of base neither side changed stays one opaque run.
 */
import { defName } from '../../coreform/forms.js';
import { readTerm } from '../../coreform/read.js';
import { scanFormBounds } from '../../coreform/scan.js';
import { decodeSlice } from '../../util/bytes.js';
import { commonPrefix, commonRun, commonSuffix } from './common-bytes.js';
import { cutAfter, formsEndingBy, formsStartingBefore } from './clean-cuts.js';
import { checkDeadline } from '../common/deadline.js';
import type { SegmentedModule, TextElement } from './element.js';
import { ByteKeyTable, DELIMITER, DefNameScanner, contentKey, isSpace } from './keys.js';
import { RunElement } from './opaque-run.js';
import { finish, newState, segmentForms, type FormBounds } from './segments.js';

const LF = 0x0a;

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
 * (a 1 MB merge). Base is scanned whole by the caller (`read`, so that it reads
 * as for {@link segmentModule}, which can reuse the scan); a side is read only in its windows.
 *
 * Why the merge of the reduced sides equals the merge of the whole ones (the merge checks the rest
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
export function segmentReduced(
  base: Uint8Array,
  ours: Uint8Array,
  theirs: Uint8Array,
  read: FormBounds,
  deadline = Infinity,
  reduceAlways = false,
): SegmentedSides | undefined {
  const bounds = read.bounds;
  if (bounds.length >> 1 === 0) return undefined;
  const windows = changeWindows(base, [ours, theirs], bounds, reduceAlways);
  if (!windows) return undefined;
  const layout = runLayout(base, bounds, windows.merged);
  checkDeadline(deadline);
  const B = segmentSide(base, layout, undefined, bounds, deadline);
  const O = B && segmentSide(ours, layout, windows.deltas[0], bounds, deadline);
  const T = O && segmentSide(theirs, layout, windows.deltas[1], bounds, deadline);
  if (!B || !O || !T) return undefined;
  // Every key of a window's element must occur in no run of base.
  if (
    !windowKeysApart(
      [B, O, T],
      base,
      bounds,
      layout.filter((p) => p.run).map((p) => p.run!),
    )
  )
    return undefined;
  return { base: B, ours: O, theirs: T };
}

/**
 * The windows of base the sides' changes fall in: each change range ({@link changeRanges}) widened
 * to clean cuts, the tail after the last form's line, windows that overlap or touch joined
 * (`merged`, in text order), and per side the length change inside each (`deltas[side][window]`).
 * Undefined when the windows hold more than half of base (unless `reduceAlways`) or all of it.
 */
function changeWindows(
  base: Uint8Array,
  sides: readonly Uint8Array[],
  bounds: ArrayLike<number>,
  reduceAlways: boolean,
): { merged: Window[]; deltas: Int32Array[] } | undefined {
  const nF = bounds.length >> 1;
  const n = base.length;
  // Each side's changes as ranges of base, each widened to clean cuts.
  const windows: Window[] = [];
  const sideRanges: ChangeRange[][] = [];
  const sideWindows: Window[][] = [];
  for (const x of sides) {
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
  for (let x = 0; x < sides.length; x++) {
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
  return { merged, deltas };
}

/** A piece of a reduced layout: an opaque run, or a window that each side reads fresh. */
interface Piece {
  run: RunElement | undefined;
  window: Window | undefined;
}

/** The layout of base: the windows `merged` in text order, and the stretches between them as one opaque run each. */
function runLayout(base: Uint8Array, bounds: ArrayLike<number>, merged: readonly Window[]): Piece[] {
  const n = base.length;
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
  return layout;
}

/**
 * One side of a reduced segmentation: runs as they are (moved by the side's length changes before
 * them, `delta` per window; undefined for base), windows read fresh with one key state for the side
 * (so key counts run across that side's windows). Undefined when a window does not read or does not
 * end as a cut does.
 */
function segmentSide(
  text: Uint8Array,
  layout: readonly Piece[],
  delta: Int32Array | undefined,
  bounds: ArrayLike<number>,
  deadline: number,
): SegmentedModule | undefined {
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
  const names = new DefNameScanner();
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
      const fast = names.scan(hay, start, end);
      if (fast >= 0) {
        if (names.start === q && fast === after) return true;
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
  const names = new DefNameScanner();
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r]!;
    for (let f = formsEndingBy(bounds, run.start); f < bounds.length >> 1 && bounds[2 * f + 1]! <= run.end; f++) {
      const start = bounds[2 * f]!;
      const end = bounds[2 * f + 1]!;
      const fast = names.scan(base, start, end);
      if (fast >= 0) continue;
      const term = readTerm(base.subarray(start, end));
      if (fast === -2 && defName(term) !== undefined) continue;
      keys.add(contentKey(term, f));
    }
  }
  return keys;
}
