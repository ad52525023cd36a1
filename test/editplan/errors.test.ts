import { describe, expect, it } from 'vitest';
import { EDIT_ERROR_CODES, TRANSACTION_ERROR_CODES, applyEdits, editErrorToJson, exitCodeFor } from '../../src/editplan/index.js';
import { edit, expectFailure } from './helpers.js';

describe('error contract', () => {
  it('has the twelve stable wire names of the spec', () => {
    expect(EDIT_ERROR_CODES).toEqual([
      'SCHEMA_MISMATCH',
      'INVALID_PLAN',
      'INVALID_FILE',
      'INVALID_EDIT',
      'INVALID_PATH',
      'UNPROVEN_EDIT',
      'PLAN_TOO_LARGE',
      'POSITION_OUT_OF_RANGE',
      'BEFORE_MISMATCH',
      'OVERLAPPING_EDITS',
      'OUTPUT_TOO_LARGE',
      'VALIDATION_REJECTED',
    ]);
  });

  const exits: Array<[string, number]> = [
    ...EDIT_ERROR_CODES.filter((c) => c !== 'BEFORE_MISMATCH').map((c): [string, number] => [c, 10]),
    ['BEFORE_MISMATCH', 50],
    ['SOURCE_HASH_MISMATCH', 50],
    ['SOURCE_MISSING', 50],
    ['RECOVERY_CONFLICT', 50],
    ['SOURCE_NOT_UTF8', 10],
    ['PATH_ESCAPES_ROOT', 10],
    ['TARGET_NOT_REGULAR', 10],
    ['PATH_ALIAS', 10],
    ['RECOVERY_REQUIRED', 70],
    ['JOURNAL_INVALID', 70],
  ];
  for (const [code, exit] of exits) {
    it(`${code} exits ${exit}`, () => expect(exitCodeFor(code)).toBe(exit));
  }
  it('every transaction code has an exit code entry above', () => {
    expect(TRANSACTION_ERROR_CODES.every((code) => exits.some(([c]) => c === code))).toBe(true);
  });

  it('wire JSON of an insert at (2,0) in "abc": POSITION_OUT_OF_RANGE, editIndex 0, no fileIndex', () => {
    const error = expectFailure(() => applyEdits('abc', [edit(2, 0, 2, 0, '', 'x')]), { code: 'POSITION_OUT_OF_RANGE', editIndex: 0 });
    expect(editErrorToJson(error)).toEqual({ code: 'POSITION_OUT_OF_RANGE', message: error.message, exitCode: 10, editIndex: 0 });
  });

  it('wire JSON of a BEFORE_MISMATCH carries the mismatch evidence at top level', () => {
    const error = expectFailure(() => applyEdits('abc', [edit(1, 0, 1, 1, 'z', 'y')], { fileIndex: 2 }), {
      code: 'BEFORE_MISMATCH',
      fileIndex: 2,
      editIndex: 0,
    });
    expect(editErrorToJson(error)).toEqual({
      code: 'BEFORE_MISMATCH',
      message: error.message,
      exitCode: 50,
      fileIndex: 2,
      editIndex: 0,
      mismatch: {
        sourceRange: { start: 0, end: 1 },
        expected: { byteLen: 1, text: 'z', truncated: false },
        actual: { byteLen: 1, text: 'a', truncated: false },
      },
    });
    expect(error.format()).toBe(`BEFORE_MISMATCH: ${error.message} (file 2, edit 0)`);
  });
});
