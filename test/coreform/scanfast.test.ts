// scanModule's flat scan loop against the reader: on valid and invalid input it must return the
// spans readModule returns and throw the error readModule throws (code, message, location).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readModule, readTerm, scanModuleReader } from '../../src/coreform/read.js';
import { scanModule, setScanWasmFrom } from '../../src/coreform/scan.js';
import { printTerm } from '../../src/coreform/print.js';
import { dataTerm } from './arbitrary.js';
import { messyModule, rng } from './messy.js';

type Spans = { forms: { start: number; end: number; leadingStart: number }[]; trailingStart: number };

/** Everything a caller can observe: the spans, or the thrown error's code, message and location. */
function outcome(fn: () => Spans): unknown {
  try {
    const r = fn();
    return { forms: r.forms.map((f) => ({ start: f.start, end: f.end, leadingStart: f.leadingStart })), trailingStart: r.trailingStart };
  } catch (error) {
    const e = error as { code?: string; message?: string; location?: unknown; exitCode?: unknown };
    if (e.code === undefined) throw error; // not a GcError: a crash, never an answer
    return { code: e.code, message: e.message, location: e.location, exitCode: e.exitCode };
  }
}

/** scanModule with its JavaScript loop (`wasm` false) or with scan.wat for every size (true). */
function scanWith(wasm: boolean, source: Uint8Array | string): Spans {
  const previous = setScanWasmFrom(wasm ? 0 : Infinity);
  try {
    return scanModule(source);
  } finally {
    setScanWasmFrom(previous);
  }
}

/** Checks scanModule, by both scans, and the reader's own scan against readModule on `source`. */
function agree(source: Uint8Array | string): void {
  const want = outcome(() => readModule(source));
  expect(outcome(() => scanWith(false, source))).toEqual(want);
  expect(outcome(() => scanWith(true, source))).toEqual(want);
  expect(outcome(() => scanModuleReader(source))).toEqual(want);
}

const enc = new TextEncoder();

/** Fragments that build CoreForm-like text, valid or not, when concatenated. */
const FRAGMENTS = [
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  "'",
  '"',
  '\\',
  ';',
  ' ',
  '\n',
  '\t',
  '\r',
  ';; c\n',
  'x',
  'foo',
  'a.b/c::d',
  ':kw',
  '-',
  '-x',
  '--5',
  '-5',
  '5',
  '007',
  '12abc',
  '1-2',
  'b',
  'bx',
  'ab"',
  'nil',
  'true',
  '"s"',
  '"a b"',
  '"\\\\"',
  '"\\""',
  '"\\n\\r\\t"',
  '"\\u00e9"',
  '"\\uD7FF"',
  '"\\uD800"',
  '"\\udfff"',
  '"\\uE000"',
  '"\\uFFFF"',
  '"\\u12"',
  '"\\u12',
  '"\\x41"',
  '"\\x4"',
  '"\\xg1"',
  '"\\q"',
  '"\\',
  '"caf\u00e9 \u2713"',
  'b"\\xff\\u0041"',
  'b"\\z"',
  'b"',
  'b"abc',
  '\\u',
  '\\x',
  'u00e9',
  'D800',
];

/** Random concatenations of FRAGMENTS (mostly invalid, with a fair share of valid modules). */
const soup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join(''));

/** Bytes worth inserting: delimiters, escapes, integer/bytes starters, and broken UTF-8. */
const SPICE = [
  0x28, 0x29, 0x5b, 0x5d, 0x7b, 0x7d, 0x27, 0x22, 0x5c, 0x3b, 0x0a, 0x20, 0x62, 0x2d, 0x30, 0x75, 0x78, 0x44, 0x38, 0x61, 0xff, 0xc3, 0xa9, 0xed, 0xa0, 0x80,
  0xe2,
];

type Mutation = { at: number; op: 'delete' | 'insert' | 'replace' | 'truncate' | 'snippet'; byte: number; snippet: string };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('delete', 'insert', 'replace', 'truncate', 'snippet'),
  byte: fc.constantFrom(...SPICE),
  snippet: fc.constantFrom('\\u', '\\uD800', '\\ud7ff', '\\x4', '\\x41', 'b"', '{a}', '{a 1 b}', "')", '(]', '"', '\\', '; x', '\n', '-1', '1x'),
});

/** Applies `m` to `bytes` at a position within range. */
function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = m.at % (bytes.length + 1);
  const before = bytes.subarray(0, at);
  const after = bytes.subarray(at);
  const join = (...parts: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };
  switch (m.op) {
    case 'delete':
      return join(before, after.subarray(1));
    case 'insert':
      return join(before, Uint8Array.of(m.byte), after);
    case 'replace':
      return join(before, Uint8Array.of(m.byte), after.subarray(1));
    case 'truncate':
      return bytes.slice(0, at);
    default:
      return join(before, enc.encode(m.snippet), after);
  }
}

describe('scanModule fast loops (JavaScript and scan.wat): exactly readModule', () => {
  it.each([
    ['escapes', '"\\\\ \\" \\n \\r \\t \\u0041 \\uD7FF \\uE000 \\uffff \\x00 \\xFf" b"\\\\\\"\\n\\u00e9\\x80"'],
    ['surrogate escapes', '"\\uD800"'],
    ['low surrogate escape', '"\\uDFFF"'],
    ['surrogate in bytes', 'b"\\udabc"'],
    ['short \\u at EOF', '"\\u00'],
    ['short \\u before quote', '"\\u00"'],
    ['short \\x', '"\\x4"'],
    ['\\x at EOF', '"\\x'],
    ['bad escape', '(a "\\q")'],
    ['bad escape control byte', '"\\\u0001"'],
    ['backslash at EOF', '"abc\\'],
    ['unterminated bytes', '(x b"abc'],
    ['unterminated string in list', '(def x "abc)\n'],
    ['escaped quotes then close', '("\\"" "\\\\" x)'],
    ['backslashes outside strings', 'a\\b "x" c\\d "y\\n"'],
    ['integers and symbols', '{-5 --5 - -x 12abc 1-2 007 b bx}'],
    ['int runs split tokens', '{1a}'],
    ['bytes after int', '{1b"x"}'],
    ['symbol then string', '{ab"x"}'],
    ['odd map', '{:a 1 :b}'],
    ['odd nested map', '[{:a {:b}}]'],
    ['quote needs a term', "(a ')"],
    ['quote at EOF', "'"],
    ['quoted quote', "''x '(a 'b) '[c] '{d 'e}"],
    ['quote in map counts once', "{'a 'b}"],
    ['close at top', ')'],
    ['mismatched', '(a]'],
    ['mismatched map', '{a b)'],
    ['unterminated nested', '(a [b {c'],
    ['comments', '; c\n(a ; (\n b) ; ]\n;; end'],
    ['comment at EOF without LF', '(a) ; c'],
    ['CR and tabs', '(a\r\n\tb)\r\n'],
    ['invalid UTF-8', Uint8Array.of(0x28, 0x61, 0xff, 0x29)],
    ['invalid UTF-8 in string', Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22)],
    ['truncated UTF-8', Uint8Array.of(0x61, 0xe2, 0x9c)],
    ['empty', ''],
    ['only trivia', ' \n; x\n\t'],
    ['non-ASCII symbols', 'café λ ✓ (f ✓)'],
    ['NUL and controls are symbol bytes', '(a\u0000b \u000b)'],
  ] as [string, string | Uint8Array][])('%s', (_name, source) => {
    agree(source);
  });

  it('agrees on token soup (mostly invalid)', () => {
    fc.assert(
      fc.property(soup, (text) => {
        agree(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on hand-formatted modules and their byte mutations', () => {
    fc.assert(
      fc.property(fc.array(dataTerm, { maxLength: 5 }), fc.integer(), fc.array(mutation, { maxLength: 3 }), (terms, seed, mutations) => {
        const text = messyModule(terms, rng(seed));
        agree(text);
        let bytes: Uint8Array = enc.encode(text);
        for (const m of mutations) {
          bytes = mutate(bytes, m);
          agree(bytes);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('agrees on printed terms with one mutation each', () => {
    fc.assert(
      fc.property(fc.array(dataTerm, { minLength: 1, maxLength: 4 }), mutation, (terms, m) => {
        const bytes = enc.encode(terms.map((t) => printTerm(t)).join('\n'));
        agree(bytes);
        agree(mutate(bytes, m));
      }),
      { numRuns: 1500 },
    );
  });

  it('scans 100,000-deep mixed nesting without overflowing the stack', () => {
    const depth = 100_000;
    const opens = ["(a '", '[', '{k '];
    const closes = [')', ']', '}'];
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      open += opens[i % 3]!;
      close = closes[i % 3]! + close;
    }
    const text = `; deep\n${open}x${close} tail`;
    const want = outcome(() => readModule(text));
    expect(want).toEqual({
      forms: [
        { start: 7, end: 7 + open.length + 1 + close.length, leadingStart: 0 },
        { start: 7 + open.length + 1 + close.length + 1, end: text.length, leadingStart: 7 + open.length + 1 + close.length },
      ],
      trailingStart: text.length,
    });
    expect(outcome(() => scanWith(false, text))).toEqual(want);
    expect(outcome(() => scanWith(true, text))).toEqual(want);
  });

  it('uses scan.wat from 64 KiB by default, with the same spans on a large module and its mutations', () => {
    const parts: string[] = [];
    for (let i = 0; parts.join('').length < 200_000; i++)
      parts.push(`;; Step ${i}.\n(def app/m::f${i}\n  (fn (x) {:k "s\\n\\u00e9" :v [x ${i} -${i} b"\\x00"]}))\n`);
    const big = enc.encode(parts.join('\n'));
    const want = outcome(() => readModule(big));
    expect(outcome(() => scanModule(big))).toEqual(want); // the default: scan.wat (200 KB)
    expect(outcome(() => scanWith(false, big))).toEqual(want);
    const r = rng(7);
    for (let k = 0; k < 40; k++) {
      const m = big.slice();
      m[Math.floor(r() * m.length)] = SPICE[Math.floor(r() * SPICE.length)]!;
      const w = outcome(() => readModule(m));
      expect(outcome(() => scanModule(m))).toEqual(w);
    }
  });

  it('reports errors in 100,000-deep input without overflowing the stack', () => {
    const depth = 100_000;
    for (const text of ['('.repeat(depth), '['.repeat(depth) + ')', '{a '.repeat(depth) + '}'.repeat(depth), "'".repeat(depth) + ']']) agree(text);
  });

  it('keeps reading terms the same (shared symbol cache, lazy small ints)', () => {
    const a = readTerm('(f x -128 1023 1024 -129 -0 123456789012345 1234567890123456 -99999999999999999999 nil true false)');
    expect(printTerm(a)).toBe('(f x -128 1023 1024 -129 0 123456789012345 1234567890123456 -99999999999999999999 nil true false)');
    // A source changed after it was read does not change the terms read from it later.
    const src = enc.encode('(sym-a)');
    const t1 = readTerm(src);
    src.set(enc.encode('b'), 5);
    const t2 = readTerm(src);
    expect(printTerm(t1)).toBe('(sym-a)');
    expect(printTerm(t2)).toBe('(sym-b)');
  });
});
