import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readTerm } from '../../src/coreform/read.js';
import { compareTerms, map, pair, str, sym, termsEqual, vec, NIL, FALSE, listFrom, type Term } from '../../src/coreform/term.js';
import { printTerm } from '../../src/coreform/print.js';
import { compareUtf8 } from '../../src/util/bytes.js';
import { atom, dataTerm } from './arbitrary.js';

describe('total order (docs/reference/coreform.md §1.4)', () => {
  it('sorts the repository order chain', () => {
    const chain: Term[] = [
      readTerm('nil'),
      readTerm('false'),
      readTerm('true'),
      readTerm('-1'),
      readTerm('0'),
      readTerm('"a"'),
      readTerm('"b"'),
      readTerm('b"a"'),
      readTerm('b"b"'),
      readTerm('a'),
      readTerm('b'),
      pair(NIL, NIL),
      pair(NIL, FALSE),
      readTerm('[]'),
      readTerm('[nil]'),
      readTerm('{}'),
      readTerm('{nil nil}'),
    ];
    for (let i = 0; i < chain.length; i++) {
      for (let j = 0; j < chain.length; j++) {
        expect(Math.sign(compareTerms(chain[i]!, chain[j]!))).toBe(Math.sign(i - j));
      }
    }
  });

  it('orders strings and symbols by UTF-8 bytes, not UTF-16 units', () => {
    // U+FF61 is 0xEF 0xBD 0xA1 in UTF-8; U+1F600 is 0xF0 …: JS `<` gets this backwards.
    expect('\u{1F600}' < '\uFF61').toBe(true);
    expect(compareTerms(str('\uFF61'), str('\u{1F600}'))).toBeLessThan(0);
    expect(compareTerms(sym('\uFF61'), sym('\u{1F600}'))).toBeLessThan(0);
    expect(compareUtf8('\uE000', '\u{10000}')).toBeLessThan(0);
  });

  it('sorts a shorter proper list before a longer one with the same prefix', () => {
    expect(compareTerms(readTerm('(a b)'), readTerm('(a b c)'))).toBeLessThan(0);
    expect(compareTerms(readTerm('[1 2]'), readTerm('[1 2 0]'))).toBeLessThan(0);
    expect(compareTerms(readTerm('{:a 1}'), readTerm('{:a 1 :b 0}'))).toBeLessThan(0);
    expect(compareTerms(readTerm('{:a 2}'), readTerm('{:a 1 :b 0}'))).toBeGreaterThan(0);
  });

  it('compares integers numerically beyond 2^64', () => {
    expect(compareTerms(readTerm('-99999999999999999999999'), readTerm('-1'))).toBeLessThan(0);
    expect(compareTerms(readTerm('18446744073709551617'), readTerm('18446744073709551616'))).toBeGreaterThan(0);
  });

  it('keeps map keys in canonical order with last-wins duplicates', () => {
    const m = map([
      [sym(':b'), str('x')],
      [sym(':a'), str('y')],
      [sym(':b'), str('z')],
    ]);
    expect(m.entries.map(([k, v]) => [(k as { name: string }).name, (v as { value: string }).value])).toEqual([
      [':a', 'y'],
      [':b', 'z'],
    ]);
  });

  // 25,000 levels: over twice the ~11,400 frames the simplest recursive function reaches on Node 20's
  // default stack, so any walk that recursed per level would overflow. 100,000 levels: bench/scale.js.
  it('compares 25,000-deep terms without overflowing the stack', () => {
    let a: Term = NIL;
    let b: Term = NIL;
    for (let i = 0; i < 25_000; i++) {
      a = listFrom([a]);
      b = listFrom([b]);
    }
    expect(termsEqual(a, b)).toBe(true);
  });

  it('is a total, antisymmetric and transitive order', () => {
    fc.assert(
      fc.property(dataTerm, dataTerm, dataTerm, (x, y, z) => {
        const xy = Math.sign(compareTerms(x, y));
        expect(Math.sign(compareTerms(y, x))).toBe(-xy || 0);
        expect(compareTerms(x, x)).toBe(0);
        const yz = Math.sign(compareTerms(y, z));
        const xz = Math.sign(compareTerms(x, z));
        expect(xy <= 0 && yz <= 0 && xz > 0, 'x <= y <= z, yet x > z').toBe(false);
        expect(xy === 0 && !termsEqual(x, y), 'x and y compare equal, yet are not equal').toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('termsEqual gives the answer of compareTerms(a, b) === 0, on equal copies and on copies that differ in one place', () => {
    fc.assert(
      fc.property(dataTerm, dataTerm, atom, atom, (x, y, p, q) => {
        const copy = readTerm(printTerm(x));
        expect(termsEqual(x, copy)).toBe(true);
        expect(termsEqual(x, y)).toBe(compareTerms(x, y) === 0);
        // the same tree with one leaf that may differ, deep inside a vector, a map and a list
        const a = vec([x, map([[str('k'), listFrom([y, p])]])]);
        const b = vec([copy, map([[str('k'), listFrom([readTerm(printTerm(y)), q])]])]);
        expect(termsEqual(a, b)).toBe(compareTerms(a, b) === 0);
        expect(termsEqual(a, b)).toBe(compareTerms(p, q) === 0);
      }),
      { numRuns: 500 },
    );
  });
});
