import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalizeForm, canonicalizeSource } from '../../src/coreform/canon.js';
import { MAX_PRINT_LENGTH, PRINT_WIDTH, printModule, printTerm } from '../../src/coreform/print.js';
import { readTerm } from '../../src/coreform/read.js';
import { bytes, int, list, listFrom, map, str, sym, termsEqual, vec, NIL, type Term } from '../../src/coreform/term.js';
import { utf8Length } from '../../src/util/bytes.js';
import { isGcError } from '../../src/util/errors.js';
import { canonicalTerm } from './arbitrary.js';

describe('canonical printer examples (docs/reference/coreform.md §1.5)', () => {
  const cases: [string, string][] = [
    ['[1 2 3]', '[1 2 3]'],
    ['[1 2 3 4]', '[\n  1\n  2\n  3\n  4]'],
    ['{:b 2 :a 1}', '{:a 1 :b 2}'],
    ['{:c 3 :b 2 :a 1}', '{\n  :a 1\n  :b 2\n  :c 3}'],
    ['[[:form 0]]', '[\n  [:form 0]]'],
    ['{:a [1]}', '{\n  :a [1]}'],
    ['{b 2 a 1 c 3}', '{\n  a 1\n  b 2\n  c 3}'],
    ['[]', '[]'],
    ['{}', '{}'],
  ];
  it.each(cases)('%s', (source, printed) => {
    expect(printTerm(readTerm(source))).toBe(printed);
  });

  it('app_sugar.in.gc canonicalizes to app_sugar.out.gc', () => {
    expect(printModule(canonicalizeSource('(def main (fn (x) (fn (y) (f x y))))\n(main 1 2)\n'))).toBe(
      '(def main (fn (x) (fn (y) ((f x) y))))\n\n((main 1) 2)\n',
    );
  });

  it('escapes strings with named escapes and uppercase \\u for other controls', () => {
    expect(printTerm(str('a\tb\rc\u0000\u007f\u0085\u00a0é'))).toBe('"a\\tb\\rc\\u0000\\u007F\\u0085\u00a0é"');
  });

  it('escapes bytes with named escapes and uppercase \\x', () => {
    expect(printTerm(bytes(new Uint8Array([0x22, 0x5c, 0x0a, 0x0d, 0x09, 0x41, 0x7e, 0x7f, 0x1c, 0xa4])))).toBe('b"\\"\\\\\\n\\r\\tA~\\x7F\\x1C\\xA4"');
  });

  it('counts width in UTF-8 bytes, not UTF-16 units', () => {
    // 48 two-byte characters: 96 bytes but 48 UTF-16 units; with (f …) it is 103 bytes > 100.
    const s = str('é'.repeat(48));
    expect(printTerm(list(sym('f'), s))).toBe('(f\n  "' + 'é'.repeat(48) + '")');
    const t = str('é'.repeat(46));
    expect(printTerm(list(sym('f'), t))).toBe('(f "' + 'é'.repeat(46) + '")');
  });

  it('puts one or two leading elements on the first line', () => {
    // At indent 2, "(f " + 95 bytes is 100 bytes: the second element still shares the line…
    const fits = sym('x'.repeat(95));
    expect(printTerm(list(sym('def'), sym('name'), list(sym('f'), fits, fits)))).toBe(`(def name\n  (f ${'x'.repeat(95)}\n    ${'x'.repeat(95)}))`);
    // …one byte more and it moves to its own line.
    const long = sym('x'.repeat(96));
    expect(printTerm(list(sym('def'), sym('name'), list(sym('f'), long, long)))).toBe(`(def name\n  (f\n    ${'x'.repeat(96)}\n    ${'x'.repeat(96)}))`);
    // The head is never width-checked; an overlong second element moves to its own line.
    expect(printTerm(list(sym('h'.repeat(120)), int(1), vec([int(1), int(2), int(3), int(4)])))).toBe(
      `(${'h'.repeat(120)}\n  1\n  [\n    1\n    2\n    3\n    4])`,
    );
  });

  it('prints a map entry whose key and value fit on one line, else key then value indented by 4', () => {
    const big = vec([int(1), int(2), int(3), int(4)]);
    expect(printTerm(map([[sym(':k'), big]]))).toBe('{\n  :k\n    [\n      1\n      2\n      3\n      4]}');
  });

  it('prints overlong atoms on one line', () => {
    const s = str('z'.repeat(300));
    expect(printTerm(s)).toBe(`"${'z'.repeat(300)}"`);
  });

  it('separates module forms by one blank line and ends with one newline', () => {
    expect(printModule([sym('a'), NIL, int(3)])).toBe('a\n\nnil\n\n3\n');
  });
});

describe('printer properties', () => {
  it('read(print(t)) == t for canonical terms', () => {
    fc.assert(
      fc.property(canonicalTerm, (t) => {
        expect(termsEqual(readTerm(printTerm(t)), t)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('canon is idempotent through print and read', () => {
    fc.assert(
      fc.property(canonicalTerm, (t) => {
        const once = canonicalizeForm(t, 0);
        const twice = canonicalizeForm(readTerm(printTerm(once)), 0);
        expect(termsEqual(once, twice)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never exceeds the width except for a lone overlong atom or list head (closers aside)', () => {
    fc.assert(
      fc.property(canonicalTerm, (t) => {
        for (const line of printTerm(t).split('\n')) {
          if (utf8Length(line.replace(/[)\]}]+$/, '')) <= PRINT_WIDTH) continue;
          // Wider lines hold one term (an overlong atom) or "(" and one head term, plus closers.
          expect(isOneTermWithClosers(line.trimStart()) || isOneTermWithClosers(line.trimStart().slice(1))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** True when `text` is exactly one term followed by zero or more closing delimiters. */
function isOneTermWithClosers(text: string): boolean {
  for (let end = text.length; end > 0; end--) {
    try {
      readTerm(text.slice(0, end));
      return /^[)\]}]*$/.test(text.slice(end));
    } catch {
      if (!/[)\]}]/.test(text[end - 1]!)) return false;
    }
  }
  return false;
}

describe('print caches', () => {
  it('reuses cached blocks only at the indent they were printed at', () => {
    const source = '(def big {' + Array.from({ length: 200 }, (_, i) => `:k${i} [${i} "v${i}" (f x y)]`).join(' ') + '})';
    const form = canonicalizeSource(source)[0]!;
    const fresh = (): Term => canonicalizeSource(source)[0]!;
    const alone = printTerm(form);
    expect(alone.length).toBeGreaterThan(4096);
    // The same object printed inside containers at other indents, then alone again.
    const nested = printTerm(vec([form, map([[sym(':k'), form]])]));
    expect(nested).toBe(printTerm(vec([fresh(), map([[sym(':k'), fresh()]])])));
    expect(printTerm(form)).toBe(alone);
    expect(printTerm(fresh())).toBe(alone);
    expect(printModule([form, form])).toBe(`${alone}\n\n${alone}\n`);
  });
});

describe('deep and large terms', () => {
  // 25,000 levels: over twice the ~11,400 frames the simplest recursive function reaches on Node 20's
  // default stack, so any walk that recursed per level would overflow. 100,000 levels: bench/scale.js.
  it('prints a 25,000-deep list in code position: canonicalization collapses it', () => {
    const depth = 25_000;
    const source = '('.repeat(depth) + 'x' + ')'.repeat(depth);
    const forms = canonicalizeSource(source);
    expect(printModule(forms)).toBe('x\n');
  });

  it('prints a 100,000-deep application chain without overflowing the stack, or stops with core/print/too-large', () => {
    let t: Term = sym('x');
    for (let i = 0; i < 100_000; i++) t = list(sym('f'), t);
    let code = 'printed';
    try {
      printTerm(t);
    } catch (error) {
      code = isGcError(error) ? error.code : 'crash';
    }
    expect(code).toBe('core/print/too-large');
  });

  it('prints a 2,000-deep quoted list exactly (quadratic indentation, well under the limit)', () => {
    let t: Term = NIL;
    for (let i = 0; i < 2000; i++) t = listFrom([sym('g'), t]);
    const printed = printTerm(t);
    expect(printed.split('\n').length).toBeGreaterThan(1900);
    expect(termsEqual(readTerm(printed), t)).toBe(true);
    expect(printed.length).toBeLessThan(MAX_PRINT_LENGTH);
  });
});
