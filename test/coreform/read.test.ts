import { describe, expect, it } from 'vitest';
import { lineColumn, parseModule, readModule, readTerm } from '../../src/coreform/read.js';
import { NIL, TRUE, FALSE, bytes, int, kw, list, listItems, map, str, sym, termsEqual, vec, type Term } from '../../src/coreform/term.js';
import { GcError } from '../../src/util/errors.js';
import { utf8 } from '../../src/util/bytes.js';
import { sizedModule } from './sized-module.js';

function parseErr(fn: () => unknown): GcError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GcError);
    return e as GcError;
  }
  throw new Error('expected a GcError');
}

function expectErr(source: string | Uint8Array, code: string, offset: number, fn: (s: string | Uint8Array) => unknown = readTerm): GcError {
  const e = parseErr(() => fn(source));
  expect({ code: e.code, offset: e.location.offset }).toEqual({ code, offset });
  expect(e.exitCode).toBe(10);
  expect(typeof e.location.line).toBe('number');
  expect(typeof e.location.column).toBe('number');
  return e;
}

function expectTerms(source: string, expected: Term[]): void {
  const got = parseModule(source);
  expect(got.length).toBe(expected.length);
  got.forEach((t, i) => expect(termsEqual(t, expected[i]!), `form ${i}`).toBe(true));
}

describe('reader error vectors (docs/reference/coreform.md §1.2)', () => {
  it('frozen: unterminated string inside a def → unexpected at the opening quote (7)', () => {
    const e = expectErr('(def x "unterminated)\n', 'core/parse/unexpected', 7, readModule);
    expect(e.message).toBe('unterminated string literal');
    expect(e.location).toMatchObject({ line: 1, column: 8 });
  });
  it('empty input → eof at 0', () => {
    expectErr('', 'core/parse/eof', 0);
  });
  it('lone quote → eof at 1', () => {
    expectErr("'", 'core/parse/eof', 1);
  });
  it('comment only → eof at 11', () => {
    const e = expectErr('  ; comment', 'core/parse/eof', 11);
    expect(e.message).toBe('unexpected end of input: expected a term');
  });
  it(') → unexpected at 0', () => {
    const e = expectErr(')', 'core/parse/unexpected', 0);
    expect(e.message).toBe("unexpected closing delimiter ')'");
  });
  it('(nil → unexpected at 0 (unterminated list at its opening paren)', () => {
    const e = expectErr('(nil', 'core/parse/unexpected', 0);
    expect(e.message).toContain('unterminated list');
  });
  it('"\\q" → escape at the backslash (1)', () => {
    const e = expectErr('"\\q"', 'core/parse/escape', 1);
    expect(e.message).toContain("'\\q'");
  });
  it('trailing tokens after a term', () => {
    const e = expectErr('1 ; c\n  2', 'core/parse/unexpected', 8);
    expect(e.message).toBe('trailing tokens after term');
    expect(e.location).toMatchObject({ line: 2, column: 3 });
    expectErr('x )', 'core/parse/unexpected', 2);
  });
  it('66 unclosed parens → unexpected at the innermost opening paren', () => {
    expectErr('('.repeat(66), 'core/parse/unexpected', 65);
    expectErr('('.repeat(66) + 'x', 'core/parse/unexpected', 65, readModule);
  });
  it('quote inside an unclosed list at EOF → eof (a term was expected)', () => {
    expectErr("(a '", 'core/parse/eof', 4);
  });
  it('unterminated vector / map / bytes → at the opener', () => {
    expectErr('  [1 2', 'core/parse/unexpected', 2);
    expectErr('x {:a 1', 'core/parse/unexpected', 2, readModule);
    const e = expectErr('(b"abc)', 'core/parse/unexpected', 1);
    expect(e.message).toBe('unterminated bytes literal');
    expectErr('"abc\\', 'core/parse/unexpected', 0);
  });
  it('mismatched closer → unexpected at the bad closer', () => {
    const e = expectErr('(a]', 'core/parse/unexpected', 2);
    expect(e.message).toContain("mismatched closing delimiter ']'");
    expectErr('[a}', 'core/parse/unexpected', 2);
    expectErr("{'x)", 'core/parse/unexpected', 3);
  });
  it('odd map → unexpected at the opening brace', () => {
    const e = expectErr('  {:a 1 :b}', 'core/parse/unexpected', 2);
    expect(e.message).toBe('map literal must contain an even number of terms (found 3)');
  });
  it('escape errors at the backslash', () => {
    expectErr('"ab\\u12"', 'core/parse/escape', 3);
    expectErr('"ab\\u12G4"', 'core/parse/escape', 3);
    expectErr('"\\uD800"', 'core/parse/escape', 1);
    expectErr('"\\udfff"', 'core/parse/escape', 1);
    expectErr('"\\x4"', 'core/parse/escape', 1);
    expectErr('"\\x4g"', 'core/parse/escape', 1);
    expectErr('"\\u00e"', 'core/parse/escape', 1);
    expectErr('b"\\q"', 'core/parse/escape', 2);
    expectErr('b"\\x0"', 'core/parse/escape', 2);
    expectErr('"é\\a"', 'core/parse/escape', 3);
    // escape error comes before the unterminated-literal error, in reading order
    expectErr('"\\q', 'core/parse/escape', 1);
  });
  it('invalid UTF-8 → unexpected at the first invalid byte', () => {
    const src = new Uint8Array([0x28, 0x61, 0x20, 0xc3, 0x28, 0x29]);
    const e = expectErr(src, 'core/parse/unexpected', 3);
    expect(e.message).toBe('invalid UTF-8');
    expectErr(new Uint8Array([0x61, 0xed, 0xa0, 0x80]), 'core/parse/unexpected', 1); // encoded surrogate
    expectErr(new Uint8Array([0x61, 0x20, 0xc0, 0x80]), 'core/parse/unexpected', 2); // overlong
    expectErr(new Uint8Array([0x22, 0xff, 0x22]), 'core/parse/unexpected', 1, readModule);
    expectErr(new Uint8Array([0x61, 0xf0, 0x9f, 0x98]), 'core/parse/unexpected', 1); // truncated
  });
  it('line/column are 1-based, columns in bytes, only LF breaks lines', () => {
    const e = expectErr('ok\n  é\r\n  )', 'core/parse/unexpected', 11, readModule);
    expect(e.location).toMatchObject({ line: 3, column: 3 });
    expect(lineColumn(utf8('ab\ncd'), 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn(utf8('ab\ncd'), 3)).toEqual({ line: 2, column: 1 });
    expect(lineColumn(utf8('ab\ncd'), 2)).toEqual({ line: 1, column: 3 });
    expect(lineColumn(utf8('é\nx'), 2)).toEqual({ line: 1, column: 3 });
  });
});

describe('reader tokens', () => {
  it('integers need no delimiter', () => {
    expectTerms('12abc', [int(12), sym('abc')]);
    expectTerms('1-2', [int(1), int(-2)]);
    expectTerms('1.5', [int(1), sym('.5')]);
    expectTerms('007 -0 -007', [int(7), int(0), int(-7)]);
    expectTerms('(1)(2)', [list(int(1)), list(int(2))]);
    expectTerms('1"a"', [int(1), str('a')]);
  });
  it('big integers become bigints', () => {
    const big = '123456789012345678901234567890';
    expectTerms(`${big} -${big} 999999999999999 9999999999999999`, [int(BigInt(big)), int(-BigInt(big)), int(999999999999999n), int(9999999999999999n)]);
  });
  it('symbols', () => {
    expectTerms('-x + - +1 a.b #x @ , :kw ::meta pkg/mod::name a-1 bx b', [
      sym('-x'),
      sym('+'),
      sym('-'),
      sym('+1'),
      sym('a.b'),
      sym('#x'),
      sym('@'),
      sym(','),
      kw('kw'),
      sym('::meta'),
      sym('pkg/mod::name'),
      sym('a-1'),
      sym('bx'),
      sym('b'),
    ]);
    expectTerms('ab"c"', [sym('ab'), str('c')]);
    expectTerms("a'b", [sym('a'), list(sym('quote'), sym('b'))]);
    expectTerms('a;c\nb', [sym('a'), sym('b')]);
  });
  it('NBSP and form feed are symbol characters, not whitespace', () => {
    expectTerms('a\u00a0b', [sym('a\u00a0b')]);
    expectTerms('a\fb \f', [sym('a\fb'), sym('\f')]);
    expectTerms('\u00a0', [sym('\u00a0')]);
    expectTerms('λx.日本語', [sym('λx.日本語')]);
  });
  it('nil / true / false and ()', () => {
    expectTerms('nil true false () ( ) nilx :nil', [NIL, TRUE, FALSE, NIL, NIL, sym('nilx'), kw('nil')]);
    expect(termsEqual(readTerm('(nil true)'), list(NIL, TRUE))).toBe(true);
  });
  it('string escapes', () => {
    expectTerms('"\\x41\\xe9"', [str('Aé')]);
    expectTerms('"a\\\\b\\"c\\nd\\re\\tf"', [str('a\\b"c\nd\re\tf')]);
    expectTerms('"\\u00e9\\u00E9\\u0000\\uFFFF"', [str('éé\u0000\uffff')]);
    expectTerms('"raw\nnewline é 日本"', [str('raw\nnewline é 日本')]);
    expectTerms('"" "a;b(c)"', [str(''), str('a;b(c)')]);
    expectTerms('"long plain run with no escapes at all, longer than sixteen bytes"', [
      str('long plain run with no escapes at all, longer than sixteen bytes'),
    ]);
  });
  it('bytes literals', () => {
    expectTerms('b"\\x00\\xff"', [bytes(new Uint8Array([0, 255]))]);
    expectTerms('b""', [bytes(new Uint8Array([]))]);
    expectTerms('b"a\\n\\u00e9é\\\\\\""', [bytes(new Uint8Array([0x61, 0x0a, 0xc3, 0xa9, 0xc3, 0xa9, 0x5c, 0x22]))]);
    expectTerms('b"\\u20ac"', [bytes(new Uint8Array([0xe2, 0x82, 0xac]))]);
    const long = 'x'.repeat(100);
    expectTerms(`b"${long}\\x01${long}"`, [bytes(utf8(`${long}\u0001${long}`))]);
  });
  it('quote sugar', () => {
    expectTerms("'x", [list(sym('quote'), sym('x'))]);
    expectTerms("'(f a b)", [list(sym('quote'), list(sym('f'), sym('a'), sym('b')))]);
    expectTerms("''x", [list(sym('quote'), list(sym('quote'), sym('x')))]);
    expectTerms("' ; c\n x", [list(sym('quote'), sym('x'))]);
    expectTerms("['a]", [vec([list(sym('quote'), sym('a'))])]);
  });
  it('containers; duplicate map keys last-wins and keys are sorted', () => {
    expectTerms('[1 [2] ()]', [vec([int(1), vec([int(2)]), NIL])]);
    const m = readTerm('{:b 1 :a 2 :b 3}');
    expect(
      termsEqual(
        m,
        map([
          [kw('a'), int(2)],
          [kw('b'), int(3)],
        ]),
      ),
    ).toBe(true);
    expect(m.kind === 'map' && m.entries.map((e) => (e[0].kind === 'sym' ? e[0].name : '?'))).toEqual([':a', ':b']);
    expectTerms('{}', [map([])]);
    expectTerms('{b 2 a 1 c 3}', [
      map([
        [sym('a'), int(1)],
        [sym('b'), int(2)],
        [sym('c'), int(3)],
      ]),
    ]);
    const l = readTerm('(a (b c) [d])');
    expect(listItems(l)?.length).toBe(3);
  });
  it('string input is read as its UTF-8 encoding; byte input is accepted as-is', () => {
    expect(termsEqual(readTerm(utf8('"é"')), str('é'))).toBe(true);
    const r = readModule(utf8('é x'));
    expect(r.forms.map((f) => [f.start, f.end])).toEqual([
      [0, 2],
      [3, 4],
    ]);
  });
});

describe('module spans', () => {
  const text = '; header comment\n\n(def a 1) ; trailing\n\n\n  ;; doc\n(def b\n  \'(x "y"))\r\n[1 2]x\n; end\n\n';
  it('forms carry exact byte spans and trivia boundaries', () => {
    const r = readModule(text);
    const src = r.source;
    const dec = (a: number, b: number): string => new TextDecoder().decode(src.subarray(a, b));
    expect(r.forms.map((f) => dec(f.start, f.end))).toEqual(['(def a 1)', '(def b\n  \'(x "y"))', '[1 2]', 'x']);
    expect(r.forms[0]!.leadingStart).toBe(0);
    expect(dec(r.forms[0]!.leadingStart, r.forms[0]!.start)).toBe('; header comment\n\n');
    expect(dec(r.forms[1]!.leadingStart, r.forms[1]!.start)).toBe(' ; trailing\n\n\n  ;; doc\n');
    expect(dec(r.forms[3]!.leadingStart, r.forms[3]!.start)).toBe('');
    expect(r.trailingStart).toBe(r.forms[3]!.end);
    expect(dec(r.trailingStart, src.length)).toBe('\n; end\n\n');
    for (let i = 1; i < r.forms.length; i++) expect(r.forms[i]!.leadingStart).toBe(r.forms[i - 1]!.end);
    // Reconstruct exactly.
    let rebuilt = '';
    for (const f of r.forms) rebuilt += dec(f.leadingStart, f.start) + dec(f.start, f.end);
    rebuilt += dec(r.trailingStart, src.length);
    expect(rebuilt).toBe(text);
  });
  it('empty and trivia-only modules', () => {
    expect(readModule('')).toMatchObject({ forms: [], trailingStart: 0 });
    const r = readModule('  ; only a comment');
    expect(r.forms).toEqual([]);
    expect(r.trailingStart).toBe(0);
  });
});

describe('depth and size', () => {
  it('reads 100,000-deep nested lists without overflowing the stack', () => {
    const depth = 100_000;
    const t = readTerm('('.repeat(depth) + 'x' + ')'.repeat(depth));
    let cur: Term = t;
    let d = 0;
    while (cur.kind === 'pair') {
      cur = cur.car;
      d++;
    }
    expect(d).toBe(depth);
    expect(termsEqual(cur, sym('x'))).toBe(true);
    // Deep vectors, maps and quotes too.
    expect(() => readTerm('['.repeat(depth) + ']'.repeat(depth))).not.toThrow();
    expect(() => readTerm('{a '.repeat(depth) + '1' + '}'.repeat(depth))).not.toThrow();
    expect(() => readTerm("'".repeat(depth) + 'x')).not.toThrow();
    expectErr('('.repeat(depth), 'core/parse/unexpected', depth - 1);
  });
  // The 20 MB read is timed in bench/scale.js (bigModule); here the same reader on 256 KiB, thousands of forms.
  it('reads a 256 KiB module of many forms', () => {
    const { unit, count, text } = sizedModule(256 * 1024);
    const src = utf8(text);
    const r = readModule(src);
    expect(r.forms.length).toBe(count * 2);
    expect(r.trailingStart).toBe(src.length - 1);
    const last = r.forms[count * 2 - 1]!;
    expect(last.term).toEqual(r.forms[1]!.term);
    expect(last.start - r.forms[1]!.start).toBe((count - 1) * utf8(unit).length);
  });
});
