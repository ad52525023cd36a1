import { describe, expect, it } from 'vitest';
import { termToJson } from '../../src/coreform/json.js';
import { readTerm } from '../../src/coreform/read.js';
import { listFrom, pair, sym, int, NIL, type Term } from '../../src/coreform/term.js';
import { stringifyJson } from '../../src/util/json.js';

describe('JSON projection', () => {
  it('maps every kind as documented', () => {
    expect(termToJson(readTerm('{:kind "k" :n 42 :big 9007199254740992 :b b"\\x01A" :s sym :l (a 1) :v [nil true] :m {"x" 1}}'))).toEqual({
      b: { $bytes: '0141' },
      big: { $int: '9007199254740992' },
      kind: 'k',
      l: { $list: [{ $sym: 'a' }, 1] },
      m: { $map: [['x', 1]] },
      n: 42,
      s: { $sym: 'sym' },
      v: [null, true],
    });
    expect(termToJson(pair(int(1), int(2)))).toEqual({ $pair: [1, 2] });
    expect(termToJson(readTerm('-9007199254740991'))).toBe(-9007199254740991);
  });

  it('keeps keyword keys in canonical order', () => {
    expect(Object.keys(termToJson(readTerm('{:b 1 :a 2 :c 3}')) as object)).toEqual(['a', 'b', 'c']);
  });

  it('handles a __proto__ keyword key as data', () => {
    const j = termToJson(readTerm('{:__proto__ 1}')) as Record<string, unknown>;
    expect(stringifyJson(j)).toBe('{"__proto__":1}');
  });

  // 25,000 levels: over twice the ~11,400 frames the simplest recursive function reaches on Node 20's
  // default stack, so any walk that recursed per level would overflow. 100,000 levels: bench/scale.js.
  it('projects and serializes a 25,000-deep list without overflowing the stack', () => {
    let t: Term = NIL;
    for (let i = 0; i < 25_000; i++) t = listFrom([sym('x'), t]);
    const text = stringifyJson(termToJson(t));
    expect(text.startsWith('{"$list":[{"$sym":"x"},{"$list":[')).toBe(true);
    expect(text.length).toBeGreaterThan(500_000);
  });

  it('stringifyJson matches JSON.stringify on ordinary values', () => {
    const v = { a: [1, 'two', { b: null, c: [true, false] }], d: 'é"\\', e: {}, f: [] };
    expect(stringifyJson(v)).toBe(JSON.stringify(v));
    expect(stringifyJson(v, 2)).toBe(JSON.stringify(v, null, 2));
  });
});
