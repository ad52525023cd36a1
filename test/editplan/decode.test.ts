import { describe, expect, it } from 'vitest';
import { JsonNumber, decodeEditPlan, decodeEditPlanBytes, serializeEditPlan } from '../../src/editplan/index.js';
import { expectFailure, HASH, type Expected } from './helpers.js';

const EDIT = '{"startLine":1,"startChar":0,"endLine":1,"endChar":1,"before":"a","after":"b","provenance":"EXACT_LSP"}';
const FILE = (edits = `[${EDIT}]`, extra = '') => `{"path":"a.ts","sha256":"${HASH}","edits":${edits}${extra}}`;
const PLAN = (files = `[${FILE()}]`, extra = '') => `{"schemaVersion":"weavatrix.edit-plan.v1","operation":"rename_symbol","files":${files}${extra}}`;
/** A plan whose only edit has `member` replaced by `value` (or removed when value is undefined). */
const withEdit = (member: string, value?: string) => {
  const pattern = new RegExp(`"${member}":("[^"]*"|[0-9]+)`);
  const edited =
    value === undefined ? EDIT.replace(pattern, '').replace(',,', ',').replace('{,', '{').replace(',}', '}') : EDIT.replace(pattern, `"${member}":${value}`);
  return PLAN(`[${FILE(`[${edited}]`)}]`);
};

interface Case {
  name: string;
  json: string;
  expected: Expected;
}

const I_PLAN: Expected = { code: 'INVALID_PLAN' };
const I_FILE0: Expected = { code: 'INVALID_FILE', fileIndex: 0 };
const I_EDIT00: Expected = { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 };

const malformed: Array<[string, string]> = [
  ['empty document', ''],
  ['only whitespace', ' \n\t'],
  ['unterminated object', '{'],
  ['trailing comma in object', '{"a":1,}'],
  ['trailing comma in array', '[1,]'],
  ['missing colon', '{"a" 1}'],
  ['single quotes', "{'a':1}"],
  ['leading zero', '{"a":01}'],
  ['bare decimal point', '{"a":1.}'],
  ['leading decimal point', '{"a":.5}'],
  ['plus sign', '{"a":+1}'],
  ['NaN', '{"a":NaN}'],
  ['truncated literal', '{"a":tru}'],
  ['raw control character in string', '{"a":"\u0001"}'],
  ['invalid escape', '{"a":"\\x41"}'],
  ['short unicode escape', '{"a":"\\u12"}'],
  ['leading BOM', '\ufeff{}'],
  ['content after the value', '{} x'],
  ['comment', '// c\n{}'],
  ['unterminated string', '{"a":"abc'],
  ['non-string key', '{1:2}'],
  ['nesting deeper than 128', '['.repeat(129) + ']'.repeat(129)],
];

const cases: Case[] = [
  ...malformed.map(([name, json]) => ({ name: `malformed JSON: ${name}`, json, expected: I_PLAN })),
  // top level
  { name: 'top-level array', json: '[]', expected: I_PLAN },
  { name: 'top-level string', json: '"plan"', expected: I_PLAN },
  { name: 'top-level number', json: '42', expected: I_PLAN },
  { name: 'top-level true', json: 'true', expected: I_PLAN },
  { name: 'top-level null', json: 'null', expected: I_PLAN },
  // schemaVersion first (JS precedent)
  { name: 'schemaVersion missing', json: '{"operation":"x","files":[]}', expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion "nope" with other members missing', json: '{"schemaVersion":"nope"}', expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion v2', json: PLAN().replace('v1', 'v2'), expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion number', json: '{"schemaVersion":1}', expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion null', json: '{"schemaVersion":null,"operation":"x"}', expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion with different case key is an extension', json: '{"SchemaVersion":"weavatrix.edit-plan.v1"}', expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion repeated, one wrong', json: PLAN(undefined, ',"schemaVersion":"v0"'), expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion beats a broken file', json: '{"schemaVersion":"x","files":[1]}', expected: { code: 'SCHEMA_MISMATCH' } },
  // plan level
  { name: 'schemaVersion repeated with the right value', json: PLAN(undefined, ',"schemaVersion":"weavatrix.edit-plan.v1"'), expected: I_PLAN },
  { name: 'operation missing', json: '{"schemaVersion":"weavatrix.edit-plan.v1","files":[]}', expected: I_PLAN },
  { name: 'files missing', json: '{"schemaVersion":"weavatrix.edit-plan.v1","operation":"x"}', expected: I_PLAN },
  { name: 'operation is a number', json: PLAN().replace('"rename_symbol"', '7'), expected: I_PLAN },
  { name: 'operation is null', json: PLAN().replace('"rename_symbol"', 'null'), expected: I_PLAN },
  { name: 'operation with a lone surrogate', json: PLAN().replace('"rename_symbol"', '"x\\ud800"'), expected: I_PLAN },
  { name: 'files is an object', json: PLAN('{}'), expected: I_PLAN },
  { name: 'files is null', json: PLAN('null'), expected: I_PLAN },
  { name: 'duplicate operation', json: PLAN(undefined, ',"operation":"again"'), expected: I_PLAN },
  { name: 'escaped + plain duplicate operation', json: PLAN(undefined, ',"\\u006fperation":"again"'), expected: I_PLAN },
  { name: 'completeness null (spec: COMPLETE or PARTIAL)', json: PLAN(undefined, ',"completeness":null'), expected: I_PLAN },
  { name: 'completeness null twice', json: PLAN(undefined, ',"completeness":null,"completeness":null'), expected: I_PLAN },
  { name: 'completeness number', json: PLAN(undefined, ',"completeness":1'), expected: I_PLAN },
  { name: 'plan structure beats a broken file', json: PLAN('[1]', ',"operation":"dup"'), expected: I_PLAN },
  { name: 'lone surrogate in a plan extension value', json: PLAN(undefined, ',"note":"\\udfff"'), expected: I_PLAN },
  { name: 'lone surrogate in a plan extension key', json: PLAN(undefined, ',"\\ud800":1'), expected: I_PLAN },
  { name: 'lone surrogate nested in a plan extension', json: PLAN(undefined, ',"x":{"y":[1,{"z":"\\ud800"}]}'), expected: I_PLAN },
  // file level
  { name: 'file is an array', json: PLAN('[[]]'), expected: I_FILE0 },
  { name: 'file is a string', json: PLAN('["a.ts"]'), expected: I_FILE0 },
  { name: 'file is null', json: PLAN('[null]'), expected: I_FILE0 },
  { name: 'file path missing', json: PLAN(`[{"sha256":"${HASH}","edits":[${EDIT}]}]`), expected: I_FILE0 },
  { name: 'file sha256 missing', json: PLAN(`[{"path":"a","edits":[${EDIT}]}]`), expected: I_FILE0 },
  { name: 'file edits missing', json: PLAN(`[{"path":"a","sha256":"${HASH}"}]`), expected: I_FILE0 },
  { name: 'file path is a number', json: PLAN(`[${FILE().replace('"a.ts"', '1')}]`), expected: I_FILE0 },
  { name: 'file sha256 is null', json: PLAN(`[${FILE().replace(`"${HASH}"`, 'null')}]`), expected: I_FILE0 },
  { name: 'file edits is an object', json: PLAN(`[${FILE('{}')}]`), expected: I_FILE0 },
  { name: 'file path duplicated', json: PLAN(`[${FILE(undefined, ',"path":"b.ts"')}]`), expected: I_FILE0 },
  { name: 'file path with a lone surrogate', json: PLAN(`[${FILE().replace('"a.ts"', '"\\udc00.ts"')}]`), expected: I_FILE0 },
  { name: 'file extension with a lone surrogate', json: PLAN(`[${FILE(undefined, ',"x":"\\ud800"')}]`), expected: I_FILE0 },
  { name: 'second file broken', json: PLAN(`[${FILE()},{"path":"b"}]`), expected: { code: 'INVALID_FILE', fileIndex: 1 } },
  { name: 'file structure beats its edits', json: PLAN(`[${FILE('[1]', ',"sha256":"x"')}]`), expected: I_FILE0 },
  // edit level
  { name: 'edit is a positional array', json: PLAN(`[${FILE('[[1,0,1,1,"a","b","EXACT_LSP"]]')}]`), expected: I_EDIT00 },
  { name: 'edit is null', json: PLAN(`[${FILE('[null]')}]`), expected: I_EDIT00 },
  ...['startLine', 'startChar', 'endLine', 'endChar', 'before', 'after', 'provenance'].map((member) => ({
    name: `edit ${member} missing`,
    json: withEdit(member),
    expected: I_EDIT00,
  })),
  { name: 'startLine -1', json: withEdit('startLine', '-1'), expected: I_EDIT00 },
  { name: 'startLine -0', json: withEdit('startLine', '-0'), expected: I_EDIT00 },
  { name: 'startChar 1.5', json: withEdit('startChar', '1.5'), expected: I_EDIT00 },
  { name: 'startChar 1.0 (decision: not an integer literal)', json: withEdit('startChar', '1.0'), expected: I_EDIT00 },
  { name: 'startChar 1e0 (decision: not an integer literal)', json: withEdit('startChar', '1e0'), expected: I_EDIT00 },
  { name: 'endLine 4294967296', json: withEdit('endLine', '4294967296'), expected: I_EDIT00 },
  { name: 'endChar 30 digits', json: withEdit('endChar', '1'.repeat(30)), expected: I_EDIT00 },
  { name: 'endChar as a string', json: withEdit('endChar', '"1"'), expected: I_EDIT00 },
  { name: 'endChar null', json: withEdit('endChar', 'null'), expected: I_EDIT00 },
  { name: 'before is a number', json: withEdit('before', '1'), expected: I_EDIT00 },
  { name: 'after is null', json: withEdit('after', 'null'), expected: I_EDIT00 },
  { name: 'provenance is an array', json: withEdit('provenance', '["EXACT_LSP"]'), expected: I_EDIT00 },
  { name: 'before with a lone surrogate', json: withEdit('before', '"\\ud83d"'), expected: I_EDIT00 },
  { name: 'after with a lone surrogate', json: withEdit('after', '"x\\ude00"'), expected: I_EDIT00 },
  { name: 'duplicate startLine', json: PLAN(`[${FILE(`[${EDIT.replace('}', ',"startLine":1}')}]`)}]`), expected: I_EDIT00 },
  { name: 'escaped + plain duplicate startLine', json: PLAN(`[${FILE(`[${EDIT.replace('}', ',"\\u0073tartLine":1}')}]`)}]`), expected: I_EDIT00 },
  { name: 'edit extension with a lone surrogate', json: PLAN(`[${FILE(`[${EDIT.replace('}', ',"x":["\\ud800"]}')}]`)}]`), expected: I_EDIT00 },
  { name: 'second edit of second file', json: PLAN(`[${FILE()},${FILE(`[${EDIT},{}]`)}]`), expected: { code: 'INVALID_EDIT', fileIndex: 1, editIndex: 1 } },
];

describe('decodeEditPlan: errors, codes and indices', () => {
  for (const c of cases) {
    const { name } = c;
    it(name, () => {
      expectFailure(() => decodeEditPlan(c.json), c.expected);
    });
  }
  it('malformed JSON reports the UTF-8 byte offset, line and column', () => {
    const error = expectFailure(() => decodeEditPlan('{\n  "é": tru\n}'), I_PLAN);
    expect(error.location).toMatchObject({ offset: 10, line: 2, column: 9 });
  });
  it('bytes that are not UTF-8 are INVALID_PLAN', () => {
    expectFailure(() => decodeEditPlanBytes(new Uint8Array([0x7b, 0xff, 0x7d])), I_PLAN);
  });
});

describe('decodeEditPlan: accepted documents', () => {
  it('decodes the spec example with its createdAt extension', () => {
    const p = decodeEditPlan(PLAN(undefined, ',"completeness":"COMPLETE","createdAt":"2026-08-01T12:00:00Z"'));
    expect(p.completeness).toBe('COMPLETE');
    expect(p.extensions).toEqual(new Map([['createdAt', '2026-08-01T12:00:00Z']]));
    expect(p.files[0]!.edits[0]).toMatchObject({ startLine: 1, startChar: 0, endLine: 1, endChar: 1, before: 'a', after: 'b' });
  });
  it('escaped spellings of declared names bind to the declared field', () => {
    const json = PLAN(`[${FILE(`[${EDIT.replace('"startLine"', '"\\u0073tartLine"')}]`).replace('"path"', '"p\\u0061th"')}]`);
    const p = decodeEditPlan(json);
    expect(p.files[0]!.path).toBe('a.ts');
    expect(p.files[0]!.edits[0]!.startLine).toBe(1);
    expect(p.files[0]!.extensions).toBeUndefined();
    expect(p.files[0]!.edits[0]!.extensions).toBeUndefined();
  });
  it('positions 0 and 4294967295 decode (line 0 is left to validation)', () => {
    const p = decodeEditPlan(withEdit('startLine', '0').replace('"endChar":1', '"endChar":4294967295'));
    expect(p.files[0]!.edits[0]).toMatchObject({ startLine: 0, endChar: 4294967295 });
  });
  it('unknown provenance decodes verbatim (rejected later as UNPROVEN_EDIT)', () => {
    const p = decodeEditPlan(withEdit('provenance', '"FUTURE_TIER"'));
    expect(p.files[0]!.edits[0]!.provenance).toBe('FUTURE_TIER');
    expect(serializeEditPlan(p)).toContain('"provenance":"FUTURE_TIER"');
  });
  it('a repeated unknown member keeps its last value', () => {
    const p = decodeEditPlan(PLAN(undefined, ',"x":1,"y":2,"x":3'));
    expect([...p.extensions!]).toEqual([
      ['x', 3],
      ['y', 2],
    ]);
  });
  it('Operation, schema_version and extensions are ordinary extension keys', () => {
    const p = decodeEditPlan(PLAN(undefined, ',"Operation":"a","schema_version":"b","extensions":{}'));
    expect([...p.extensions!.keys()].sort()).toEqual(['Operation', 'extensions', 'schema_version']);
    expect(p.operation).toBe('rename_symbol');
  });
  it('extension values of every JSON type are kept, numbers as written', () => {
    const values =
      '{"n":null,"t":true,"f":false,"big":18446744073709551615,"neg":-9223372036854775808,"mz":-0,"huge":1e400,"frac":1.50,"s":"\\u00e9\\n","a":[1,[2]],"o":{"k":"v"}}';
    const p = decodeEditPlan(PLAN(undefined, `,"ext":${values}`));
    expect(serializeEditPlan(p)).toContain(
      '"ext":{"a":[1,[2]],"big":18446744073709551615,"f":false,"frac":1.50,"huge":1e400,"mz":-0,"n":null,"neg":-9223372036854775808,"o":{"k":"v"},"s":"é\\n","t":true}',
    );
  });
  it('numbers: plain integers up to 15 digits become JS numbers, every other literal keeps its text', () => {
    const p = decodeEditPlan(PLAN(undefined, ',"a":[0,-7,123456789012345,1234567890123456,-0,1.0,1e2]'));
    expect(p.extensions!.get('a')).toEqual([
      0,
      -7,
      123456789012345,
      new JsonNumber('1234567890123456'),
      new JsonNumber('-0'),
      new JsonNumber('1.0'),
      new JsonNumber('1e2'),
    ]);
  });
  it('a surrogate pair written as two escapes is one well-formed character', () => {
    const p = decodeEditPlan(withEdit('after', '"\\ud83d\\ude00"'));
    expect(p.files[0]!.edits[0]!.after).toBe('😀');
  });
});
