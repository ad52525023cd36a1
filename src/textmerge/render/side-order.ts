/** One side's order of aligned element ids, with the neighbours and separators of each id there. */
import type { SideModule } from '../align/merge-records.js';
import { separatorBefore } from '../segment/element.js';

/** One side's order of aligned ids: position of each id, successor and separators around it. */
export class SideOrder {
  /** `pos[id]` = index of `id` on this side, -1 when absent. */
  private readonly pos: Int32Array;
  constructor(
    private readonly s: SideModule,
    readonly ids: readonly number[],
    idCount: number,
  ) {
    const pos = new Int32Array(idCount).fill(-1);
    for (let i = 0; i < ids.length; i++) pos[ids[i]!] = i;
    this.pos = pos;
  }
  /** True when `p` is immediately followed by `c` on this side. */
  adjacent(p: number, c: number): boolean {
    const i = this.pos[p]!;
    return i >= 0 && this.ids[i + 1] === c;
  }
  /** The separator after `id` on this side (undefined when absent or last). */
  sepAfter(id: number): { start: number; end: number } | undefined {
    const i = this.pos[id]!;
    return i >= 0 && i + 1 < this.ids.length ? separatorBefore(this.s.m, i + 1) : undefined;
  }
  /** The index of `id` on this side, -1 when absent. */
  indexOf(id: number): number {
    return this.pos[id]!;
  }
  /** The separator before `id` on this side (undefined when absent or first). */
  sepBefore(id: number): { start: number; end: number } | undefined {
    const i = this.pos[id]!;
    return i > 0 ? separatorBefore(this.s.m, i) : undefined;
  }
}
