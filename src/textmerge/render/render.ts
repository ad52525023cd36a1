/**
 * Step 5 of the text merge, rendering: the merged order of aligned elements written out as pieces
 * of the inputs (untouched elements and separators are spans of a side's text, copied byte for
 * byte), conflicts as one marker block per element, and the cheap safety net's proof alongside.
 */
import type { SideModule } from '../align/merge-records.js';
import { Outputs, type Out, type RenderContext, type RenderMode } from './element-output.js';
import type { Side, TextConflict, TextPiece } from '../common/result.js';
import { CheapProof, type Reading } from './safety-net.js';
import { Separators, type Sep } from './separators.js';

const LF = 0x0a;

/** A rendered reading of the result, with the conflicts it marked. */
export interface Rendered extends Reading {
  conflicts: TextConflict[];
}

/**
 * Renders the elements `order` (aligned ids, the merged order) in `mode`: the real result with
 * conflict markers, or ours' / theirs' reading of it (each conflict taken from that side).
 * `collect`: also list the elements emitted outside markers (for the full re-read).
 */
export function render(ctx: RenderContext, order: readonly number[], mode: RenderMode, collect: boolean): Rendered {
  const sides: Record<Side, SideModule> = { base: ctx.B, ours: ctx.O, theirs: ctx.T };
  const writer = new PieceWriter(sides);
  const seps = new Separators(ctx);
  const outputs = new Outputs(ctx, sides, mode);
  const proof = new CheapProof(sides, ctx.deadline, collect, seps);
  const conflicts: TextConflict[] = [];
  const lead = seps.lead();
  let prevId = -1;
  let prevOut: Out | undefined;
  for (let oi = 0; oi < order.length; oi++) {
    const id = order[oi]!;
    const out = outputs.of(id);
    if (!out) continue;
    let sep: Sep | undefined;
    if (prevOut) {
      sep = seps.between(prevId, id, prevOut, out);
      writer.sep(sep);
    } else {
      writer.sep(lead);
      proof.whitespace(seps.text(lead));
    }
    if (out.conflict) {
      const at = writer.currentLine();
      for (const l of out.markerLines ?? [0]) {
        conflicts.push({ code: out.conflict, kind: out.elKind, name: out.name, line: at + l, detail: out.detail ?? 'both sides changed it differently' });
      }
      proof.conflict();
    } else proof.element(out, sep);
    writer.element(out);
    prevId = id;
    prevOut = out;
  }
  const trail = seps.trail(prevOut !== undefined && prevOut.conflict !== undefined);
  writer.sep(trail);
  proof.whitespace(seps.text(trail));
  writer.flush();
  return { pieces: writer.pieces, elements: proof.elements, conflicts, proven: proof.proven };
}

/**
 * The pieces of a render. A span of a side that continues the previous one extends it; line
 * numbers (needed for conflicts only) are counted up to the current piece on demand.
 */
class PieceWriter {
  readonly pieces: TextPiece[] = [];
  private lines = 1;
  private counted = 0;
  private spanSide: Side | undefined;
  private spanStart = 0;
  private spanEnd = 0;

  constructor(private readonly sides: Record<Side, SideModule>) {}

  /** Ends the span being extended (call before reading `pieces`). */
  flush(): void {
    if (this.spanSide === undefined) return;
    this.pieces.push({
      bytes: this.sides[this.spanSide].m.text.subarray(this.spanStart, this.spanEnd),
      from: { side: this.spanSide, start: this.spanStart, end: this.spanEnd },
    });
    this.spanSide = undefined;
  }

  /** The 1-based line the next byte written starts on. */
  currentLine(): number {
    this.flush();
    const pieces = this.pieces;
    for (; this.counted < pieces.length; this.counted++) {
      const b = pieces[this.counted]!.bytes;
      for (let i = b.indexOf(LF); i !== -1; i = b.indexOf(LF, i + 1)) this.lines++;
    }
    return this.lines;
  }

  /** Writes `side`'s text `[start, end)`. */
  span(side: Side, start: number, end: number): void {
    if (start === end) return;
    if (this.spanSide === side && this.spanEnd === start) {
      this.spanEnd = end;
      return;
    }
    this.flush();
    this.spanSide = side;
    this.spanStart = start;
    this.spanEnd = end;
  }

  /** Writes bytes of the merge's own. */
  bytes(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.flush();
    this.pieces.push({ bytes, from: undefined });
  }

  /** Writes a separator. */
  sep(s: Sep): void {
    if (s.side !== undefined) this.span(s.side, s.start, s.end);
    else this.bytes(s.bytes!);
  }

  /** Writes an element's output. */
  element(out: Out): void {
    if (out.side !== undefined) {
      const el = this.sides[out.side].m.elements[out.index]!;
      this.span(out.side, el.start, el.end);
    } else this.bytes(out.bytes!);
  }
}
