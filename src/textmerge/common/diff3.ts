/**
 * Line-level three-way merge in TypeScript (Myers diff + diff3), used inside one top-level form
 * when both sides changed it (the structural merge's line-level three-way merge inside that
 * form). The whole-file fallback uses `git merge-file` instead (line-based.ts).
 *
 * Inputs and outputs are UTF-8 bytes with LF line breaks; a "line" includes its LF (the last line may
 * lack one). Like git's xdiff, changes of the two sides that overlap or touch (one ends on the line
 * where the other starts, or both insert at the same place) form one conflict unless identical.
 */
import { GcError } from '../../util/errors.js';
import { checkDeadline } from './deadline.js';

/**
 * Error code: a diff would need more memory than {@link myersBudget} allows. The
 * driver then falls back to the line merge (`git merge-file`), whose memory is linear.
 */
export const TEXT_TOO_LARGE = 'merge/text/too-large';

/** Fixed part of the Myers frontier budget, in saved `Int32` entries (4 MiB entries = 16 MiB). */
export const MYERS_BASE_BUDGET = 1 << 22;
/** Per-input-element part of the Myers frontier budget, in saved `Int32` entries. */
export const MYERS_BUDGET_PER_ELEMENT = 64;

/**
 * The most frontier entries {@link myersDiff} may save for inputs of `n` and `m` elements (lines or
 * child nodes): {@link MYERS_BASE_BUDGET} + {@link MYERS_BUDGET_PER_ELEMENT} × (n + m), i.e. memory
 * proportional to the input. The saved frontiers grow as D² for D differences, so two sides that
 * rewrite one large form differently would otherwise need gigabytes.
 */
export function myersBudget(n: number, m: number): number {
  return MYERS_BASE_BUDGET + MYERS_BUDGET_PER_ELEMENT * (n + m);
}

/** One difference between two line sequences: `a[aStart, aEnd)` is replaced by `b[bStart, bEnd)`. */
export interface Hunk {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** One region of a three-way merge: stable/one-sided (`lines`) or a conflict (the three sides). */
export type MergeChunk = { kind: 'ok'; lines: Uint8Array[] } | { kind: 'conflict'; ours: Uint8Array[]; base: Uint8Array[]; theirs: Uint8Array[] };

/** The result of {@link diff3}: the chunks in order and how many of them conflict. */
export interface Diff3Result {
  chunks: MergeChunk[];
  conflicts: number;
}

/** Marker style: git's `merge` (ours/theirs) or `diff3` (with the base section). */
export type ConflictStyle = 'merge' | 'diff3';

/** How conflict markers are written. Labels may be empty (then the marker line is just the marker). */
export interface MarkerOptions {
  /** Marker length (git `%L`, default 7). */
  markerSize: number;
  style: ConflictStyle;
  oursLabel: string;
  baseLabel: string;
  theirsLabel: string;
}

const LF = 0x0a;

/** Splits LF-normalized bytes into lines, each including its LF; the last may lack one. */
export function splitLines(text: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf(LF, start);
    end = end === -1 ? text.length : end + 1;
    lines.push(text.subarray(start, end));
    start = end;
  }
  return lines;
}

/** Concatenates byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** True when two byte arrays hold the same bytes (native comparison, no JS loop). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** Interns lines as small integers so that the diff compares numbers. */
class LineTable {
  private readonly ids = new Map<string, number>();
  intern(lines: readonly Uint8Array[]): Int32Array {
    const out = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      const key = Buffer.from(lines[i]!.buffer, lines[i]!.byteOffset, lines[i]!.length).toString('latin1');
      let id = this.ids.get(key);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(key, id);
      }
      out[i] = id;
    }
    return out;
  }
}

/**
 * Myers' O(ND) shortest edit script between two integer sequences, as hunks in ascending order.
 * Common prefix and suffix are stripped first.
 * @param deadline `performance.now()`-style ms timestamp after which `TimeoutError` is thrown.
 * @param budget most `Int32` frontier entries to save (default {@link myersBudget} of the inputs).
 * @throws TimeoutError when the deadline passes; GcError {@link TEXT_TOO_LARGE} when the saved
 *   frontiers would exceed `budget`.
 */
export function myersDiff(a: ArrayLike<number>, b: ArrayLike<number>, deadline = Infinity, budget = myersBudget(a.length, b.length)): Hunk[] {
  let pre = 0;
  const n0 = a.length;
  const m0 = b.length;
  while (pre < n0 && pre < m0 && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < n0 - pre && suf < m0 - pre && a[n0 - 1 - suf] === b[m0 - 1 - suf]) suf++;
  const n = n0 - pre - suf;
  const m = m0 - pre - suf;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0) return [{ aStart: pre, aEnd: pre + n, bStart: pre, bEnd: pre + m }];
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let saved = 0;
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    if ((d & 63) === 0) checkDeadline(deadline);
    saved += 2 * d + 3;
    if (saved > budget) {
      throw new GcError(
        TEXT_TOO_LARGE,
        `the diff of ${n0} against ${m0} lines or nodes needs more than ${budget} saved entries (more than ${d} differences); memory is capped in proportion to the input`,
      );
    }
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) x = v[offset + k + 1]!;
      else x = v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[pre + x] === b[pre + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Backtrack through the saved frontiers; trace[d] holds v[-d-1 .. d+1] before step d.
  const edits: { x: number; y: number; kind: 'del' | 'ins' }[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const vd = trace[d]!;
    const get = (k: number): number => vd[k + d + 1]!;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && get(k - 1) < get(k + 1))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = get(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (prevK === k + 1) edits.push({ x: prevX, y: prevY, kind: 'ins' });
    else edits.push({ x: prevX, y: prevY, kind: 'del' });
    x = prevX;
    y = prevY;
  }
  edits.reverse();
  // Group consecutive edits into hunks.
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  for (const e of edits) {
    const ax = e.x;
    const by = e.y;
    if (cur && cur.aEnd === pre + ax && cur.bEnd === pre + by) {
      if (e.kind === 'del') cur.aEnd++;
      else cur.bEnd++;
    } else {
      cur = { aStart: pre + ax, aEnd: pre + ax, bStart: pre + by, bEnd: pre + by };
      if (e.kind === 'del') cur.aEnd++;
      else cur.bEnd++;
      hunks.push(cur);
    }
  }
  return hunks;
}

/** Line diff of two texts (hunks over their {@link splitLines}). */
export function diffLines(a: Uint8Array, b: Uint8Array, deadline = Infinity): { a: Uint8Array[]; b: Uint8Array[]; hunks: Hunk[] } {
  const al = splitLines(a);
  const bl = splitLines(b);
  const table = new LineTable();
  return { a: al, b: bl, hunks: myersDiff(table.intern(al), table.intern(bl), deadline) };
}

function linesEqual(x: readonly Uint8Array[], y: readonly Uint8Array[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (!Buffer.from(x[i]!.buffer, x[i]!.byteOffset, x[i]!.length).equals(y[i]!)) return false;
  }
  return true;
}

/**
 * Three-way line merge (diff3). Regions where at most one side changed the base take that side;
 * identical changes are taken once; other overlapping or touching changes become conflicts.
 * @param deadline ms timestamp (`performance.now()` clock) for the diff; throws TimeoutError after it.
 */
export function diff3(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, deadline = Infinity): Diff3Result {
  const bl = splitLines(base);
  const ol = splitLines(ours);
  const tl = splitLines(theirs);
  const table = new LineTable();
  const bi = table.intern(bl);
  const oh = myersDiff(bi, table.intern(ol), deadline).map((h) => ({ ...h, side: 0 as const }));
  const th = myersDiff(bi, table.intern(tl), deadline).map((h) => ({ ...h, side: 1 as const }));
  const all = [...oh, ...th].sort((p, q) => p.aStart - q.aStart || p.aEnd - q.aEnd || p.side - q.side);
  const chunks: MergeChunk[] = [];
  let conflicts = 0;
  let basePos = 0;
  // Offsets (side index - base index) after the last hunk of each side seen so far.
  let oDelta = 0;
  let tDelta = 0;
  const pushOk = (lines: Uint8Array[]): void => {
    if (lines.length === 0) return;
    const last = chunks[chunks.length - 1];
    if (last && last.kind === 'ok') for (const line of lines) last.lines.push(line);
    else chunks.push({ kind: 'ok', lines: [...lines] });
  };
  let i = 0;
  while (i < all.length) {
    const first = all[i]!;
    let gs = first.aStart;
    let ge = first.aEnd;
    const group = [first];
    i++;
    while (i < all.length && all[i]!.aStart <= ge) {
      const h = all[i]!;
      // Touching changes of the same side never group by themselves (Myers hunks are disjoint).
      group.push(h);
      if (h.aEnd > ge) ge = h.aEnd;
      i++;
    }
    gs = Math.min(gs, ...group.map((h) => h.aStart));
    pushOk(bl.slice(basePos, gs));
    const os = group.filter((h) => h.side === 0);
    const ts = group.filter((h) => h.side === 1);
    const region = (hs: typeof group, lines: Uint8Array[], delta: number): { lines: Uint8Array[]; delta: number } => {
      if (hs.length === 0) return { lines: lines.slice(gs + delta, ge + delta), delta };
      const f = hs[0]!;
      const l = hs[hs.length - 1]!;
      const start = f.bStart - (f.aStart - gs);
      const end = l.bEnd + (ge - l.aEnd);
      return { lines: lines.slice(start, end), delta: l.bEnd - l.aEnd };
    };
    const o = region(os, ol, oDelta);
    const t = region(ts, tl, tDelta);
    oDelta = o.delta;
    tDelta = t.delta;
    if (ts.length === 0) pushOk(o.lines);
    else if (os.length === 0) pushOk(t.lines);
    else if (linesEqual(o.lines, t.lines)) pushOk(o.lines);
    else {
      chunks.push({ kind: 'conflict', ours: o.lines, base: bl.slice(gs, ge), theirs: t.lines });
      conflicts++;
    }
    basePos = ge;
  }
  pushOk(bl.slice(basePos));
  return { chunks, conflicts };
}

/** The bytes of a marker line: `size` copies of `char`, then ` label` when the label is non-empty, then LF. */
export function markerLine(char: string, size: number, label: string): Uint8Array {
  return Buffer.from(char.repeat(size) + (label === '' ? '' : ` ${label}`) + '\n', 'utf8');
}

/**
 * Writes a conflict block for the three versions of one region: `<<<<<<< ours`, ours' lines,
 * (`||||||| base`, base lines, when the style is diff3), `=======`, theirs' lines, `>>>>>>> theirs`.
 * Each version that does not end with LF gets one, so every marker starts a line.
 */
export function conflictBlock(ours: Uint8Array, base: Uint8Array, theirs: Uint8Array, markers: MarkerOptions): Uint8Array {
  const nl = (b: Uint8Array): Uint8Array[] => (b.length > 0 && b[b.length - 1] !== LF ? [b, new Uint8Array([LF])] : [b]);
  const parts: Uint8Array[] = [markerLine('<', markers.markerSize, markers.oursLabel), ...nl(ours)];
  if (markers.style === 'diff3') parts.push(markerLine('|', markers.markerSize, markers.baseLabel), ...nl(base));
  parts.push(markerLine('=', markers.markerSize, ''), ...nl(theirs), markerLine('>', markers.markerSize, markers.theirsLabel));
  return concatBytes(parts);
}

/** Renders a {@link diff3} result, conflicts as {@link conflictBlock}s. */
export function renderDiff3(result: Diff3Result, markers: MarkerOptions): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const c of result.chunks) {
    if (c.kind === 'ok') for (const line of c.lines) parts.push(line);
    else parts.push(conflictBlock(concatBytes(c.ours), concatBytes(c.base), concatBytes(c.theirs), markers));
  }
  return concatBytes(parts);
}
