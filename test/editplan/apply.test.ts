import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, type ApplyLimits, type BeforeMismatch, type TextEdit } from '../../src/editplan/index.js';
import { edit, expectFailure, failureOf, type Expected } from './helpers.js';

interface Ok {
  name: string;
  source: string;
  edits: TextEdit[];
  output: string;
}

const applied: Ok[] = [
  { name: 'single rename', source: 'getUser()', edits: [edit(1, 0, 1, 7, 'getUser', 'getCustomer')], output: 'getCustomer()' },
  {
    name: 'double rename against the original text',
    source: 'getUser(getUser)',
    edits: [edit(1, 0, 1, 7, 'getUser', 'getCustomer'), edit(1, 8, 1, 15, 'getUser', 'getCustomer')],
    output: 'getCustomer(getCustomer)',
  },
  {
    name: 'astral char counts two units: getUser at 16..23',
    source: 'const x = "😀"; getUser()',
    edits: [edit(1, 16, 1, 23, 'getUser', 'getCustomer')],
    output: 'const x = "😀"; getCustomer()',
  },
  { name: 'CRLF preserved, insert on the final empty line', source: 'a\r\nb\r\n', edits: [edit(3, 0, 3, 0, '', 'c')], output: 'a\r\nb\r\nc' },
  { name: 'adjacent replacements', source: 'abc\n', edits: [edit(1, 0, 1, 1, 'a', 'A'), edit(1, 1, 1, 2, 'b', 'B')], output: 'ABc\n' },
  {
    name: 'inserts at one offset keep array order',
    source: 'abcd\n',
    edits: [edit(1, 4, 1, 4, '', '1'), edit(1, 4, 1, 4, '', '2'), edit(1, 4, 1, 4, '', '3')],
    output: 'abcd123\n',
  },
  { name: 'identical inserts are both kept', source: 'ab', edits: [edit(1, 1, 1, 1, '', 'x'), edit(1, 1, 1, 1, '', 'x')], output: 'axxb' },
  { name: "insert at a replacement's start goes before it", source: 'abc', edits: [edit(1, 0, 1, 1, 'a', 'A'), edit(1, 0, 1, 0, '', 'X')], output: 'XAbc' },
  { name: "insert at a replacement's end goes after it", source: 'abc', edits: [edit(1, 0, 1, 1, 'a', 'A'), edit(1, 1, 1, 1, '', 'X')], output: 'AXbc' },
  {
    name: 'boundary inserts around <BC>',
    source: 'a<BC>d',
    edits: [edit(1, 1, 1, 5, '<BC>', '[bc]'), edit(1, 5, 1, 5, '', ')'), edit(1, 1, 1, 1, '', '(')],
    output: 'a([bc])d',
  },
  {
    name: 'multi-line deletion via next-line position 0',
    source: 'keep\ndelete me\nkeep too\n',
    edits: [edit(2, 0, 3, 0, 'delete me\n', '')],
    output: 'keep\nkeep too\n',
  },
  {
    name: 'mixed same-offset inserts and a replacement',
    source: 'abcd',
    edits: [edit(1, 1, 1, 1, '', 'A'), edit(1, 1, 1, 2, 'b', 'BB'), edit(1, 1, 1, 1, '', 'B'), edit(1, 2, 1, 2, '', 'C'), edit(1, 2, 1, 2, '', 'D')],
    output: 'aABBBCDcd',
  },
  {
    name: 'unsorted input gives the sorted result',
    source: 'a😀bcdef',
    edits: [edit(1, 6, 1, 7, 'e', 'E'), edit(1, 3, 1, 4, 'b', 'B!'), edit(1, 0, 1, 0, '', '<')],
    output: '<a😀B!cdEf',
  },
  {
    name: 'equal-length multibyte replacements',
    source: 'a\u00e9\u03bbz',
    edits: [edit(1, 1, 1, 3, '\u00e9\u03bb', '\u00f8\u0416')],
    output: 'a\u00f8\u0416z',
  },
  { name: 'replace the emoji by its UTF-16 range', source: 'a😀z', edits: [edit(1, 1, 1, 3, '😀', 'x')], output: 'axz' },
  { name: 'gap: empty source insert at (1,0)', source: '', edits: [edit(1, 0, 1, 0, '', 'hello')], output: 'hello' },
  { name: 'gap: BOM is one UTF-16 unit', source: '\ufeffabc', edits: [edit(1, 1, 1, 2, 'a', 'A')], output: '\ufeffAbc' },
  { name: 'gap: replacing the BOM itself', source: '\ufeffabc', edits: [edit(1, 0, 1, 1, '\ufeff', '')], output: 'abc' },
  { name: 'gap: lone \\r is not a line break', source: 'a\rb\nc', edits: [edit(1, 2, 1, 3, 'b', 'B'), edit(2, 0, 2, 1, 'c', 'C')], output: 'a\rB\nC' },
  { name: 'gap: insert between \\r and \\n', source: 'ab\r\n', edits: [edit(1, 3, 1, 3, '', 'X')], output: 'ab\rX\n' },
  { name: 'gap: CRLF before including \\r (to (2,0))', source: 'ab\r\ncd', edits: [edit(1, 0, 2, 0, 'ab\r\n', '')], output: 'cd' },
  { name: 'gap: CRLF before including \\r (to char 3)', source: 'ab\r\ncd', edits: [edit(1, 0, 1, 3, 'ab\r', 'AB')], output: 'AB\ncd' },
  { name: 'gap: CRLF before excluding \\r', source: 'ab\r\ncd', edits: [edit(1, 0, 1, 2, 'ab', 'AB')], output: 'AB\r\ncd' },
  { name: 'delete everything', source: 'a\nb', edits: [edit(1, 0, 2, 1, 'a\nb', '')], output: '' },
  { name: 'output may equal the source (delete + re-insert)', source: 'ab', edits: [edit(1, 0, 1, 1, 'a', ''), edit(1, 1, 1, 1, '', 'a')], output: 'ab' },
];

describe('applyEdits: outputs', () => {
  for (const c of applied) {
    const { name } = c;
    it(name, () => {
      const result = applyEdits(c.source, c.edits);
      expect(result.text).toBe(c.output);
      expect(result.editsApplied).toBe(c.edits.length);
      expect(result.bytesBefore).toBe(Buffer.byteLength(c.source));
      expect(result.bytesAfter).toBe(Buffer.byteLength(c.output));
    });
  }
  it('reports changes in sorted order with UTF-16 source and output ranges', () => {
    const result = applyEdits('abcd', [edit(1, 2, 1, 3, 'c', 'CC'), edit(1, 0, 1, 1, 'a', '')]);
    expect(result.changes).toEqual([
      { editIndex: 1, sourceStart: 0, sourceEnd: 1, outputStart: 0, outputEnd: 0 },
      { editIndex: 0, sourceStart: 2, sourceEnd: 3, outputStart: 1, outputEnd: 3 },
    ]);
  });
});

interface Bad {
  name: string;
  source: string;
  edits: TextEdit[];
  limits?: Partial<ApplyLimits>;
  validator?: (output: string) => boolean;
  expected: Expected;
}

const a = (start: number, end: number, before: string, after = 'X') => edit(1, start, 1, end, before, after);

const failures: Bad[] = [
  { name: 'insert at (2,0) in "abc"', source: 'abc', edits: [edit(2, 0, 2, 0, '', 'x')], expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 } },
  { name: 'gap: empty source (2,0)', source: '', edits: [edit(2, 0, 2, 0, '', 'x')], expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 } },
  { name: 'end inside the surrogate pair', source: 'a😀z', edits: [a(1, 2, 'x')], expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 } },
  { name: 'start inside the surrogate pair', source: 'a😀z', edits: [a(2, 4, 'xz')], expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 } },
  { name: 'char one past the LF', source: 'ab\ncd', edits: [a(0, 3, 'ab\n')], expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 } },
  {
    name: 'gap: between \\r\\n (1,4) is past the line',
    source: 'ab\r\n',
    edits: [edit(1, 4, 1, 4, '', 'x')],
    expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 },
  },
  { name: 'wrong before', source: 'abc', edits: [a(0, 1, 'z')], expected: { code: 'BEFORE_MISMATCH', editIndex: 0 } },
  { name: 'gap: CRLF before without the \\r', source: 'ab\r\ncd', edits: [edit(1, 0, 2, 0, 'ab\n', '')], expected: { code: 'BEFORE_MISMATCH', editIndex: 0 } },
  { name: 'gap: range to char 3 but before omits \\r', source: 'ab\r\ncd', edits: [a(0, 3, 'ab')], expected: { code: 'BEFORE_MISMATCH', editIndex: 0 } },
  { name: 'before is not Unicode-normalized (NFD vs NFC)', source: '\u00e5', edits: [a(0, 1, 'a\u030a')], expected: { code: 'BEFORE_MISMATCH', editIndex: 0 } },
  { name: 'insert with a non-empty before', source: 'abc', edits: [a(1, 1, 'b')], expected: { code: 'BEFORE_MISMATCH', editIndex: 0 } },
  {
    name: 'before mismatch on edit 1, no partial output',
    source: 'abc',
    edits: [a(0, 1, 'a'), a(1, 2, 'z')],
    expected: { code: 'BEFORE_MISMATCH', editIndex: 1 },
  },
  {
    name: 'position error on edit 1 beats before mismatch on edit 0',
    source: 'abc',
    edits: [a(0, 1, 'z'), a(0, 9, 'abc')],
    expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 1 },
  },
  {
    name: 'earlier bad position beats later INVALID_EDIT',
    source: 'abc',
    edits: [a(0, 9, 'abc'), a(0, 1, 'a', 'a')],
    expected: { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 },
  },
  {
    name: 'structural error beats before mismatch',
    source: 'abc',
    edits: [a(0, 1, 'z'), edit(1, 0, 1, 1, 'a', 'b', 'INFERRED')],
    expected: { code: 'UNPROVEN_EDIT', editIndex: 1 },
  },
  {
    name: 'before mismatch beats overlap',
    source: 'abcd',
    edits: [a(0, 2, 'ab'), a(1, 3, 'bc'), a(3, 4, 'z')],
    expected: { code: 'BEFORE_MISMATCH', editIndex: 2 },
  },
  {
    name: 'overlap: edit 0 / related 1',
    source: 'abcd',
    edits: [a(0, 2, 'ab'), a(1, 3, 'bc')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 0, relatedEditIndex: 1 },
  },
  {
    name: 'gap: unsorted overlap [1..4, 0..2] → edit 1, related 0',
    source: 'abcd',
    edits: [a(1, 4, 'bcd'), a(0, 2, 'ab')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 1, relatedEditIndex: 0 },
  },
  {
    name: 'gap: duplicate identical replacements conflict',
    source: 'abc',
    edits: [a(0, 1, 'a', 'A'), a(0, 1, 'a', 'A')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 0, relatedEditIndex: 1 },
  },
  {
    name: 'same start, shorter range sorts first',
    source: 'abcd',
    edits: [a(0, 3, 'abc'), a(0, 1, 'a')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 1, relatedEditIndex: 0 },
  },
  {
    name: 'interior insert conflicts: replacement is editIndex (insert first in array)',
    source: 'a<BC>d',
    edits: [a(3, 3, ''), a(1, 5, '<BC>')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 1, relatedEditIndex: 0 },
  },
  {
    name: 'interior insert conflicts: replacement is editIndex (insert last in array)',
    source: 'a<BC>d',
    edits: [a(1, 5, '<BC>'), a(3, 3, '')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 0, relatedEditIndex: 1 },
  },
  {
    name: 'nested range conflicts with its container',
    source: 'abcdef',
    edits: [a(2, 3, 'c'), a(0, 6, 'abcdef')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 1, relatedEditIndex: 0 },
  },
  {
    name: 'multi-line overlap',
    source: 'ab\ncd\nef',
    edits: [edit(1, 1, 2, 1, 'b\nc', 'X'), edit(2, 0, 3, 0, 'cd\n', 'Y')],
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 0, relatedEditIndex: 1 },
  },
  { name: 'source over maxSourceBytes', source: 'abcd', edits: [], limits: { maxSourceBytes: 3 }, expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'source bytes counted in UTF-8 (😀 = 4)', source: '😀', edits: [], limits: { maxSourceBytes: 3 }, expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'edits over maxEdits', source: 'abc', edits: [a(0, 1, 'a'), a(1, 2, 'b')], limits: { maxEdits: 1 }, expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'size checks come before edit checks', source: 'abc', edits: [a(0, 9, 'x')], limits: { maxSourceBytes: 1 }, expected: { code: 'PLAN_TOO_LARGE' } },
  {
    name: 'gap: source over the output limit with zero edits',
    source: 'abcdef',
    edits: [],
    limits: { maxOutputBytes: 5 },
    expected: { code: 'OUTPUT_TOO_LARGE' },
  },
  { name: 'growing output over the limit', source: 'abc', edits: [a(0, 1, 'a', 'AAA')], limits: { maxOutputBytes: 4 }, expected: { code: 'OUTPUT_TOO_LARGE' } },
  {
    name: 'output limit counts UTF-8 bytes',
    source: 'a',
    edits: [a(0, 1, 'a', '\u00e9\u00e9')],
    limits: { maxOutputBytes: 3 },
    expected: { code: 'OUTPUT_TOO_LARGE' },
  },
  {
    name: 'overlap beats output size',
    source: 'abc',
    edits: [a(0, 2, 'ab', 'XXXXXX'), a(1, 2, 'b')],
    limits: { maxOutputBytes: 1 },
    expected: { code: 'OVERLAPPING_EDITS', editIndex: 0, relatedEditIndex: 1 },
  },
  { name: 'validator returns false', source: 'abc', edits: [a(0, 1, 'a')], validator: () => false, expected: { code: 'VALIDATION_REJECTED' } },
  { name: 'source with a lone surrogate', source: 'a\ud800', edits: [a(0, 1, 'a')], expected: { code: 'SOURCE_NOT_UTF8' } },
  { name: 'edit checks: line 0', source: 'abc', edits: [edit(0, 0, 1, 1, 'a', 'b')], expected: { code: 'INVALID_EDIT', editIndex: 0 } },
  { name: 'edit checks: reversed range', source: 'abc', edits: [a(2, 1, 'b')], expected: { code: 'INVALID_EDIT', editIndex: 0 } },
  { name: 'edit checks: no-op', source: 'abc', edits: [a(0, 1, 'a', 'a')], expected: { code: 'INVALID_EDIT', editIndex: 0 } },
  { name: 'edit checks: INFERRED', source: 'abc', edits: [edit(1, 0, 1, 1, 'a', 'b', 'INFERRED')], expected: { code: 'UNPROVEN_EDIT', editIndex: 0 } },
];

describe('applyEdits: failures carry one code, exact indices, no output', () => {
  for (const c of failures) {
    const { name } = c;
    it(name, () => {
      expectFailure(() => applyEdits(c.source, c.edits, { limits: c.limits, validator: c.validator }), c.expected);
    });
  }
  it('adds fileIndex when the caller gives one', () => {
    expectFailure(() => applyEdits('abc', [a(0, 1, 'z')], { fileIndex: 4 }), { code: 'BEFORE_MISMATCH', fileIndex: 4, editIndex: 0 });
  });
  it('the validator sees the complete output and can accept it', () => {
    const seen: string[] = [];
    const result = applyEdits('abc', [a(0, 1, 'a', 'A')], { validator: (out) => (seen.push(out), true) });
    expect(seen).toEqual(['Abc']);
    expect(result.text).toBe('Abc');
  });
  it('a shrinking plan brings a large source under the output limit', () => {
    expect(applyEdits('abcdef', [a(0, 4, 'abcd', '')], { limits: { maxOutputBytes: 2 } }).text).toBe('ef');
  });
});

describe('BEFORE_MISMATCH evidence', () => {
  it('bounded previews in UTF-8 bytes; the message holds neither text', () => {
    const source = 'xx actual-secret-value! yy';
    const error = expectFailure(() => applyEdits(source, [a(3, 24, 'expected-secret-value')], { limits: { maxPreviewBytes: 5 } }), {
      code: 'BEFORE_MISMATCH',
      editIndex: 0,
    });
    const mismatch = error.details!.mismatch as BeforeMismatch;
    expect(mismatch).toEqual({
      sourceRange: { start: 3, end: 24 },
      expected: { byteLen: 21, text: 'expec', truncated: true },
      actual: { byteLen: 21, text: 'actua', truncated: true },
    });
    expect(error.message).not.toContain('secret');
  });
  it('byte offsets count the multibyte text before the range, previews back off to a char boundary', () => {
    const error = expectFailure(() => applyEdits('😀é\u00e9\u00e9x', [edit(1, 3, 1, 5, 'zz', 'y')], { limits: { maxPreviewBytes: 3 } }), {
      code: 'BEFORE_MISMATCH',
      editIndex: 0,
    });
    expect(error.details!.mismatch).toEqual({
      sourceRange: { start: 6, end: 10 },
      expected: { byteLen: 2, text: 'zz', truncated: false },
      actual: { byteLen: 4, text: '\u00e9', truncated: true },
    });
  });
});

describe('applyEdits: properties', () => {
  it('shuffled disjoint edits give the reference splice', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 40, unit: fc.constantFrom('a', 'b', '\n', '\r', 'é', '😀') }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 3 })), { maxLength: 8 }),
        fc.nat(),
        (source, raw, seed) => {
          // Boundaries: every scalar boundary of the source.
          const bounds: number[] = [0];
          for (let i = 0; i < source.length;) {
            i += source.codePointAt(i)! > 0xffff ? 2 : 1;
            bounds.push(i);
          }
          // Disjoint ranges: sort picked cut points and pair them up.
          const cuts = raw.map(([x]) => bounds[x % bounds.length]!).sort((p, q) => p - q);
          const ranges: Array<[number, number, string]> = [];
          for (let k = 0; k + 1 < cuts.length; k += 2) {
            const after = raw[k]![2];
            const before = source.slice(cuts[k]!, cuts[k + 1]!);
            if (before !== after && !(before === '' && ranges.some((r) => r[0] === cuts[k]))) {
              ranges.push([cuts[k]!, cuts[k + 1]!, after]);
            }
          }
          let expected = '';
          let cursor = 0;
          for (const [s, e2, after] of ranges) {
            expected += source.slice(cursor, s) + after;
            cursor = e2;
          }
          expected += source.slice(cursor);
          const toPos = (offset: number) => {
            const head = source.slice(0, offset);
            const line = head.split('\n').length;
            return [line, offset - (head.lastIndexOf('\n') + 1)] as const;
          };
          const edits = ranges.map(([s, e2, after]) => {
            const [sl, sc] = toPos(s);
            const [el, ec] = toPos(e2);
            return edit(sl, sc, el, ec, source.slice(s, e2), after);
          });
          // Deterministic shuffle.
          let state = seed;
          for (let i = edits.length - 1; i > 0; i--) {
            state = (state * 1103515245 + 12345) >>> 0;
            const j = state % (i + 1);
            [edits[i], edits[j]] = [edits[j]!, edits[i]!];
          }
          expect(applyEdits(source, edits).text).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
  it('overlap indices match a reference comparator sort for random (overlapping) ranges', () => {
    const source = 'abcdefghij';
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 12 }), (raw) => {
        const ranges = raw.map(([start, length]) => [start, Math.min(10, start + length)] as const);
        const edits = ranges.map(([s, e]) => a(s, e, source.slice(s, e), `<${s}>`));
        const order = ranges
          .map((_, j) => j)
          .sort((x, y) => {
            const [xs, xe] = ranges[x]!;
            const [ys, ye] = ranges[y]!;
            return xs - ys || (xs === xe ? 0 : 1) - (ys === ye ? 0 : 1) || xe - ye || x - y;
          });
        let active = -1;
        let expected: Expected | undefined;
        for (const j of order) {
          if (active >= 0 && ranges[j]![0] < ranges[active]![1]) {
            expected = { code: 'OVERLAPPING_EDITS', editIndex: active, relatedEditIndex: j };
            break;
          }
          if (ranges[j]![1] > ranges[j]![0]) active = j;
        }
        // Exactly that failure, or every edit applied.
        let applied: number | undefined;
        const failure = failureOf(() => {
          applied = applyEdits(source, edits).editsApplied;
        });
        expect(failure).toEqual(expected);
        expect(applied).toBe(expected === undefined ? edits.length : undefined);
      }),
      { numRuns: 1000 },
    );
  });
  it('three mutually overlapping edits are rejected in every permutation', () => {
    const three = [a(0, 3, 'abc'), a(1, 4, 'bcd'), a(2, 5, 'cde')];
    const permutations = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const p of permutations) {
      const edits = p.map((i) => three[i]!);
      // Sorted by position the first two conflict: the range at 0..3 is editIndex, 1..4 related.
      expectFailure(() => applyEdits('abcdef', edits), {
        code: 'OVERLAPPING_EDITS',
        editIndex: p.indexOf(0),
        relatedEditIndex: p.indexOf(1),
      });
    }
  });
});

describe('applyEdits: scale', () => {
  // The 100,000 edits over 10 MB, timed, are in bench/editplan.js.
  it('10,000 edits over a 1 MB source, listed in reverse order, apply at the right places', () => {
    const lines = 10_000;
    const line = 'const value = getUser(input); // ' + 'p'.repeat(66) + '\n'; // 100 bytes
    const source = line.repeat(lines);
    const edits: TextEdit[] = [];
    for (let i = lines; i >= 1; i--) edits.push(edit(i, 14, i, 21, 'getUser', 'getCustomer'));
    const result = applyEdits(source, edits, { limits: { maxEdits: lines } });
    expect(result.bytesBefore).toBe(1_000_000);
    expect(result.bytesAfter).toBe(1_040_000);
    expect(result.text).toBe(line.replace('getUser', 'getCustomer').repeat(lines));
  });
});
