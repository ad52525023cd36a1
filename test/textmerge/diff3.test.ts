import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conflictBlock, diff3, diffLines, myersDiff, renderDiff3, splitLines } from '../../src/textmerge/common/diff3.js';
import { TimeoutError } from '../../src/textmerge/common/deadline.js';
import { dec, enc } from './bytes.js';

const markers = { markerSize: 7, style: 'diff3' as const, oursLabel: 'ours', baseLabel: 'base', theirsLabel: 'theirs' };

/** Applies hunks of a to b's lines: rebuilds b from a. */
function apply(a: number[], b: number[], hunks: ReturnType<typeof myersDiff>): number[] {
  const out: number[] = [];
  let pos = 0;
  for (const h of hunks) {
    out.push(...a.slice(pos, h.aStart), ...b.slice(h.bStart, h.bEnd));
    pos = h.aEnd;
  }
  return [...out, ...a.slice(pos)];
}

describe('textmerge/diff3.ts: Myers diff and diff3', () => {
  it('splits lines keeping LF, last line may lack one', () => {
    expect(splitLines(enc('a\nb\nc')).map(dec)).toEqual(['a\n', 'b\n', 'c']);
    expect(splitLines(enc(''))).toEqual([]);
  });

  it('finds a shortest edit script', () => {
    expect(myersDiff([1, 2, 3], [1, 3])).toEqual([{ aStart: 1, aEnd: 2, bStart: 1, bEnd: 1 }]);
    expect(myersDiff([], [1])).toEqual([{ aStart: 0, aEnd: 0, bStart: 0, bEnd: 1 }]);
    expect(myersDiff([1, 2], [1, 2])).toEqual([]);
    const d = diffLines(enc('a\nb\nc\n'), enc('a\nx\nc\n'));
    expect(d.hunks).toEqual([{ aStart: 1, aEnd: 2, bStart: 1, bEnd: 2 }]);
  });

  it('hunks rebuild the target and are minimal in edit count (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 30 }), fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 30 }), (a, b) => {
        const hunks = myersDiff(a, b);
        expect(apply(a, b, hunks)).toEqual(b);
        // Hunks are ascending and disjoint.
        for (let i = 1; i < hunks.length; i++) expect(hunks[i]!.aStart).toBeGreaterThan(hunks[i - 1]!.aEnd - 1);
      }),
    );
  });

  it('merges disjoint changes, takes identical changes once', () => {
    const r = diff3(enc('a\nb\nc\nd\ne\n'), enc('A\nb\nc\nd\ne\n'), enc('a\nb\nc\nd\nE\n'));
    expect(r.conflicts).toBe(0);
    expect(dec(renderDiff3(r, markers))).toBe('A\nb\nc\nd\nE\n');
    const same = diff3(enc('a\nb\n'), enc('a\nX\n'), enc('a\nX\n'));
    expect(dec(renderDiff3(same, markers))).toBe('a\nX\n');
  });

  it('treats touching changes as a conflict, like git', () => {
    const r = diff3(enc('a\nb\nc\n'), enc('A\nb\nc\n'), enc('a\nB\nc\n'));
    expect(r.conflicts).toBe(1);
    expect(dec(renderDiff3(r, markers))).toBe('<<<<<<< ours\nA\nb\n||||||| base\na\nb\n=======\na\nB\n>>>>>>> theirs\nc\n');
  });

  it('writes conflict blocks with marker size, labels and missing final newlines', () => {
    const block = conflictBlock(enc('x'), enc(''), enc('y\n'), { ...markers, markerSize: 9, style: 'merge', oursLabel: 'HEAD' });
    expect(dec(block)).toBe('<<<<<<<<< HEAD\nx\n=========\ny\n>>>>>>>>> theirs\n');
  });

  it('stops at the deadline', () => {
    const a = Array.from({ length: 2000 }, (_, i) => i);
    const b = Array.from({ length: 2000 }, (_, i) => i + 5000);
    expect(() => myersDiff(a, b, 0)).toThrow(TimeoutError);
  });

  it('clean merges contain both sides (property: (b, x, x) = x, (b, b, x) = x)', () => {
    const lines = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', '(d)\n', ''), { maxLength: 12 }).map((l) => l.join(''));
    fc.assert(
      fc.property(lines, lines, (b, x) => {
        expect(dec(renderDiff3(diff3(enc(b), enc(x), enc(x)), markers))).toBe(x);
        expect(dec(renderDiff3(diff3(enc(b), enc(b), enc(x)), markers))).toBe(x);
        expect(dec(renderDiff3(diff3(enc(b), enc(x), enc(b)), markers))).toBe(x);
      }),
    );
  });
});
