/**
 * What each aligned element renders as in one mode of the render: a side's element verbatim, bytes
 * of its own (merged, or a conflict's marker block), or nothing (deleted).
 */
import { body, type Aligned, type SideModule } from '../align/merge-records.js';
import { conflictBlock, type MarkerOptions } from '../common/diff3.js';
import type { Side, TextConflictCode } from '../common/result.js';
import type { SideOrder } from './side-order.js';

/** Which conflict side a verification render takes, or `markers` for the real result. */
export type RenderMode = 'markers' | 'ours' | 'theirs';

/** What the render works from: the sides, their orders of aligned ids, the resolutions, the options. */
export interface RenderContext {
  B: SideModule;
  O: SideModule;
  T: SideModule;
  bOrder: SideOrder;
  oOrder: SideOrder;
  tOrder: SideOrder;
  aligned: Aligned[];
  markers: MarkerOptions;
  prefer: 'ours' | 'theirs';
  deadline: number;
  /** The sides are reduced (segmentReduced): throw NeedsWholeMerge where runs would be looked into. */
  reduced: boolean;
}

/** What one element renders as in this mode: a side's element (`side`, `index`), or `bytes`. */
export interface Out {
  side: Side | undefined;
  index: number;
  bytes: Uint8Array | undefined;
  endsWithComment: boolean;
  conflict: TextConflictCode | undefined;
  detail?: string;
  /** Tree-merged element with inner conflicts: lines of its markers within the body. */
  markerLines?: number[] | undefined;
  src: Side;
  elKind: 'form' | 'comment';
  name: string | undefined;
}

const EMPTY = new Uint8Array(0);

/** The first byte `out` renders (undefined for empty bytes). */
export function firstByte(sides: Record<Side, SideModule>, out: Out): number | undefined {
  if (out.side === undefined) return out.bytes![0];
  const s = sides[out.side].m;
  return s.text[s.elements[out.index]!.start];
}

/** The outputs of one render: {@link of} gives each aligned element's, in the render's mode. */
export class Outputs {
  // Elements taken whole from a side (nearly all of them) fill two records in turn: the previous
  // element's record is still needed for the separator, nothing older is.
  private readonly takeRecords: Out[] = [0, 1].map(() => ({
    side: undefined,
    index: -1,
    bytes: undefined,
    endsWithComment: false,
    conflict: undefined,
    src: 'ours',
    elKind: 'form',
    name: undefined,
  }));
  private flip = 0;

  constructor(
    private readonly ctx: RenderContext,
    private readonly sides: Record<Side, SideModule>,
    private readonly mode: RenderMode,
  ) {}

  /** The output of aligned element `id`, or undefined when it renders as nothing. */
  of(id: number): Out | undefined {
    const a = this.ctx.aligned[id]!;
    const r = a.resolution;
    if (r.kind === 'deleted') return undefined;
    if (r.kind === 'take') return this.taken(r.side, r.index);
    if (r.kind === 'merged') return this.merged(a, r);
    return this.conflict(r);
  }

  /** Element `index` of `side` as it is (one of the two reused records). */
  private taken(side: Side, index: number): Out {
    const e = this.sides[side].m.elements[index]!;
    const o = this.takeRecords[(this.flip ^= 1)]!;
    o.side = side;
    o.index = index;
    o.bytes = undefined;
    o.endsWithComment = e.endsWithComment;
    o.conflict = undefined;
    o.detail = undefined;
    o.markerLines = undefined;
    o.src = side;
    o.elKind = e.kind;
    o.name = undefined;
    return o;
  }

  /** A merged element: its bytes, or with conflicts inside, the marked bytes or a side's reading. */
  private merged(a: Aligned, r: Extract<Aligned['resolution'], { kind: 'merged' }>): Out {
    const { mode, sides } = this;
    const src = a.o >= 0 ? 'ours' : 'theirs';
    const e = sides[src].m.elements[src === 'ours' ? a.o : a.t]!;
    if (r.inner) {
      const bytes = mode === 'markers' ? r.bytes : r.inner[mode];
      return {
        side: undefined,
        index: -1,
        bytes,
        endsWithComment: mode === 'markers' ? false : sides[mode].m.elements[mode === 'ours' ? a.o : a.t]!.endsWithComment,
        conflict: mode === 'markers' ? 'form/divergent-edit' : undefined,
        markerLines: mode === 'markers' ? r.inner.markerLines : undefined,
        detail: 'both sides changed the marked lines differently',
        src,
        elKind: e.kind,
        name: e.defName,
      };
    }
    return { side: undefined, index: -1, bytes: r.bytes, endsWithComment: r.endsWithComment, conflict: undefined, src, elKind: e.kind, name: undefined };
  }

  /** A conflict: its marker block, or in a side's reading that side's element (nothing when absent there). */
  private conflict(r: Extract<Aligned['resolution'], { kind: 'conflict' }>): Out | undefined {
    const { mode, sides } = this;
    const { B, O, T } = this.ctx;
    const any = r.o >= 0 ? sides.ours.m.elements[r.o]! : sides.theirs.m.elements[r.t]!;
    const detail =
      r.detail ??
      (r.code === 'form/delete-modify'
        ? r.o < 0
          ? 'ours deleted it, theirs changed it'
          : 'theirs deleted it, ours changed it'
        : r.code === 'form/divergent-add'
          ? 'both sides added it with different text'
          : 'both sides changed it differently');
    if (mode !== 'markers') {
      const side: Side = mode;
      const i = side === 'ours' ? r.o : r.t;
      if (i < 0) return undefined;
      const e = sides[side].m.elements[i]!;
      return { side, index: i, bytes: undefined, endsWithComment: e.endsWithComment, conflict: undefined, src: side, elKind: e.kind, name: undefined };
    }
    const block = conflictBlock(r.o >= 0 ? body(O, r.o) : EMPTY, r.b >= 0 ? body(B, r.b) : EMPTY, r.t >= 0 ? body(T, r.t) : EMPTY, this.ctx.markers);
    return {
      side: undefined,
      index: -1,
      bytes: block.subarray(0, block.length - 1),
      endsWithComment: false,
      conflict: r.code,
      detail,
      src: r.o >= 0 ? 'ours' : 'theirs',
      elKind: any.kind,
      name: any.defName,
    };
  }
}
