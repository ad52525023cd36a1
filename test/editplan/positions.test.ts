import { describe, expect, it } from 'vitest';
import { LineIndex, OUT_OF_RANGE, SPLITS_SURROGATE_PAIR, resolvePosition, utf8Offset } from '../../src/editplan/index.js';
import { expectFailure } from './helpers.js';

/** [source, line, char, expected UTF-16 offset, expected UTF-8 byte offset] */
const resolved: Array<[string, string, number, number, number, number]> = [
  ['LF vectors: line 1 start', 'alpha\nbeta\ngamma', 1, 0, 0, 0],
  ['LF vectors: line 2 start', 'alpha\nbeta\ngamma', 2, 0, 6, 6],
  ['LF vectors: end of last line', 'alpha\nbeta\ngamma', 3, 5, 16, 16],
  ['end of line 1 is before its LF', 'alpha\nbeta', 1, 5, 5, 5],
  ['CRLF: before \\r', 'a\r\nemoji 😀\n', 1, 1, 1, 1],
  ['CRLF: between \\r and \\n', 'a\r\nemoji 😀\n', 1, 2, 2, 2],
  ['emoji counts 2 UTF-16 units, 4 bytes', 'a\r\nemoji 😀\n', 2, 8, 11, 13],
  ['trailing LF: final empty line char 0', 'a\r\nemoji 😀\n', 3, 0, 12, 14],
  ['"keep\\n": (2,0) = byte 5', 'keep\n', 2, 0, 5, 5],
  ['empty source: (1,0)', '', 1, 0, 0, 0],
  ['BOM is one UTF-16 unit, 3 bytes', '\ufeffabc', 1, 1, 1, 3],
  ['lone \\r is not a line break', 'a\rb\nc', 1, 3, 3, 3],
  ['after lone \\r line 2 is "c"', 'a\rb\nc', 2, 0, 4, 4],
  ['U+2028 is not a line break', 'a\u2028b', 1, 2, 2, 4],
  ['U+0085 is not a line break', 'a\u0085b', 1, 3, 3, 4],
  ['after the emoji ("a😀z" char 3)', 'a😀z', 1, 3, 3, 5],
  ['CJK two-byte/three-byte', 'אב\nfinal', 2, 5, 8, 10],
];

describe('position resolution (1-based lines, 0-based UTF-16 chars)', () => {
  for (const [name, source, line, char, offset, bytes] of resolved) {
    it(name, () => {
      const index = new LineIndex(source);
      expect(index.resolve(line, char)).toBe(offset);
      expect(resolvePosition(source, line, char)).toBe(offset);
      expect(utf8Offset(source, offset)).toBe(bytes);
    });
  }
});

/** [name, source, line, char, tryResolve result] */
const rejected: Array<[string, string, number, number, number]> = [
  ['line 0', 'abc', 0, 0, OUT_OF_RANGE],
  ['line past the end', 'alpha\nbeta\ngamma', 4, 0, OUT_OF_RANGE],
  ['char past a line', 'alpha\nbeta\ngamma', 1, 99, OUT_OF_RANGE],
  ['one past the LF is not the next line', 'a\nb', 1, 2, OUT_OF_RANGE],
  ['"ab\\r\\n": char 4 is past the line', 'ab\r\n', 1, 4, OUT_OF_RANGE],
  ['empty source (2,0)', '', 2, 0, OUT_OF_RANGE],
  ['empty source (1,1)', '', 1, 1, OUT_OF_RANGE],
  ['no final empty line without trailing LF', 'abc', 2, 0, OUT_OF_RANGE],
  ['line u32::MAX', 'abc', 4294967295, 0, OUT_OF_RANGE],
  ['char u32::MAX', 'abc', 1, 4294967295, OUT_OF_RANGE],
  ['inside the surrogate pair ("a😀z" char 2)', 'a😀z', 1, 2, SPLITS_SURROGATE_PAIR],
  ['"a\\nb😀": (2,2) splits the pair', 'a\nb😀', 2, 2, SPLITS_SURROGATE_PAIR],
  ['"a\\nb😀": (1,2) is past line 1', 'a\nb😀', 1, 2, OUT_OF_RANGE],
];

describe('positions out of range are errors, never clamped', () => {
  for (const [name, source, line, char, reason] of rejected) {
    it(name, () => {
      const index = new LineIndex(source);
      expect(index.tryResolve(line, char)).toBe(reason);
      expectFailure(() => index.resolve(line, char, { editIndex: 3 }), { code: 'POSITION_OUT_OF_RANGE', editIndex: 3 });
    });
  }
});

describe('LineIndex', () => {
  it('counts lines as LF count + 1 and line lengths exclude LF but include \\r', () => {
    const index = new LineIndex('ab\r\n\ncd');
    expect(index.lineCount).toBe(3);
    expect([1, 2, 3].map((line) => index.lineLength(line))).toEqual([3, 0, 2]);
  });
  it('maps offsets back to positions; an LF offset maps to the end of its line', () => {
    const source = 'a😀\r\nאב\nfinal';
    const index = new LineIndex(source);
    for (let offset = 0; offset <= source.length; offset++) {
      const { line, char } = index.positionOf(offset);
      const back = index.tryResolve(line, char);
      expect(back === offset || back === SPLITS_SURROGATE_PAIR).toBe(true);
    }
    expect(index.positionOf(4)).toEqual({ line: 1, char: 4 });
    expect(index.positionOf(5)).toEqual({ line: 2, char: 0 });
  });
  it('indexes a 200,000-line source and resolves every line to its offset (throughput: bench/scale.js)', () => {
    const source = 'x\n'.repeat(200_000) + 'last';
    const index = new LineIndex(source);
    expect(index.resolve(200_001, 4)).toBe(source.length);
    for (let line = 1; line <= 200_000; line += 997) {
      expect(index.resolve(line, 1)).toBe(2 * (line - 1) + 1);
      expect(index.positionOf(2 * (line - 1))).toEqual({ line, char: 0 });
    }
  });
});
