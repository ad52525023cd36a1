import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readModule } from '../../src/coreform/read.js';
import { scanModule } from '../../src/coreform/scan.js';
import { printTerm } from '../../src/coreform/print.js';
import { dataTerm } from './arbitrary.js';

/** The outcome of reading: spans, or the error code and offset. */
function outcome(fn: () => { forms: { start: number; end: number; leadingStart: number }[]; trailingStart: number }): unknown {
  try {
    const r = fn();
    return { forms: r.forms.map((f) => [f.leadingStart, f.start, f.end]), trailingStart: r.trailingStart };
  } catch (error) {
    const e = error as { code: string; location: { offset: number } };
    return { code: e.code, offset: e.location.offset };
  }
}

const CASES = [
  '',
  '  ; only a comment',
  '(def x 1) ; c\n(def y "s\\n")\n',
  '(a b',
  '(a]',
  ')',
  '{:a 1 :b}',
  '"unterminated',
  '"\\q"',
  'b"\\xZZ"',
  "'",
  "'(quote 'x)",
  '12abc 1-2 1.5 -0 007',
  '[1 [2 {3 4}] (5 . 6)]',
  '"\\u00e9\\x41"',
  'b"\\u0041\\xff"',
  '(def x "unterminated)\n',
  new Uint8Array([0x28, 0x61, 0xff, 0x29]),
];

describe('scanModule (grammar check without terms)', () => {
  it.each(CASES.map((c) => [c]))('agrees with readModule on %j', (source) => {
    expect(outcome(() => scanModule(source))).toEqual(outcome(() => readModule(source)));
  });

  it('agrees with readModule on printed terms and on their truncations', () => {
    fc.assert(
      fc.property(fc.array(dataTerm, { maxLength: 4 }), fc.nat(), (terms, cut) => {
        const text = terms.map((t) => printTerm(t)).join('\n;; c\n');
        expect(outcome(() => scanModule(text))).toEqual(outcome(() => readModule(text)));
        const truncated = text.slice(0, cut % (text.length + 1));
        expect(outcome(() => scanModule(truncated))).toEqual(outcome(() => readModule(truncated)));
      }),
      { numRuns: 400 },
    );
  });

  it('scans a 100,000-deep list', () => {
    const depth = 100_000;
    expect(scanModule('('.repeat(depth) + ')'.repeat(depth)).forms).toEqual([{ start: 0, end: 2 * depth, leadingStart: 0 }]);
  });
});
