import { describe, expect, it } from 'vitest';
import { longestIncreasing, mergeOrder, movedItems } from '../../src/textmerge/resolve/order-merge.js';

// Items are letters; base is "abcdef...". Returns the merged order as a string.
function merge(base: string, ours: string, theirs: string, deleted = ''): string | undefined {
  const id = (c: string): number => c.charCodeAt(0);
  const r = mergeOrder(
    [...ours].map(id),
    [...theirs].map(id),
    (x) => base.indexOf(String.fromCharCode(x)),
    (x) => !deleted.includes(String.fromCharCode(x)),
  );
  return r?.map((x) => String.fromCharCode(x)).join('');
}

describe('text-order.ts: three-way order merge', () => {
  it('finds a longest increasing run and the moved items', () => {
    expect([...longestIncreasing([0, 2, 1, 3])].length).toBe(3);
    expect(movedItems([1, 0, 2, 3], (x) => x).size).toBe(1);
  });

  it('places additions next to their neighbours, ours first at one spot', () => {
    expect(merge('abc', 'axbc', 'abyc')).toBe('axbyc');
    expect(merge('abc', 'axbc', 'aybc')).toBe('axybc');
    expect(merge('', 'xy', 'zw')).toBe('xyzw');
  });

  it('keeps a reorder of one side and combines compatible reorders', () => {
    expect(merge('abcd', 'bacd', 'abcd')).toBe('bacd');
    expect(merge('abcd', 'abcd', 'abdc')).toBe('abdc');
    expect(merge('abcde', 'bacde', 'abced')).toBe('baced');
  });

  it('applies deletions', () => {
    expect(merge('abcd', 'acd', 'abcd', 'b')).toBe('acd');
  });

  it('refuses incompatible reorders', () => {
    expect(merge('abcd', 'cabd', 'abdc')).toBeUndefined();
  });
});
