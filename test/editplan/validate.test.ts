import { describe, expect, it } from 'vitest';
import { validateEditPlan, type EditPlan, type PlanLimits } from '../../src/editplan/index.js';
import { edit, expectFailure, file, HASH, plan, type Expected } from './helpers.js';

interface Case {
  name: string;
  plan: EditPlan;
  limits?: Partial<PlanLimits>;
  expected: Expected;
}

const e = (before = 'a', after = 'b') => edit(1, 0, 1, before.length, before, after);
const edits = (n: number) => Array.from({ length: n }, () => e());
const files = (n: number) => Array.from({ length: n }, (_, i) => file(`f${i}.ts`));

const cases: Case[] = [
  // 1-7: plan level, no indices
  { name: 'schemaVersion v2', plan: plan(undefined, { schemaVersion: 'weavatrix.edit-plan.v2' }), expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion empty', plan: plan(undefined, { schemaVersion: '' }), expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'schemaVersion beats everything else', plan: plan([], { schemaVersion: 'x', operation: '' }), expected: { code: 'SCHEMA_MISMATCH' } },
  { name: 'plan extension shadows operation', plan: plan(undefined, { extensions: new Map([['operation', 'x']]) }), expected: { code: 'INVALID_PLAN' } },
  { name: 'plan extension shadows completeness', plan: plan(undefined, { extensions: new Map([['completeness', 'x']]) }), expected: { code: 'INVALID_PLAN' } },
  { name: 'empty operation', plan: plan(undefined, { operation: '' }), expected: { code: 'INVALID_PLAN' } },
  { name: 'operation with a lone surrogate', plan: plan(undefined, { operation: 'x\udc00' }), expected: { code: 'INVALID_PLAN' } },
  { name: 'operation 4097 bytes', plan: plan(undefined, { operation: 'o'.repeat(4097) }), expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'operation 2049 two-byte chars (4098 bytes)', plan: plan(undefined, { operation: '\u00e9'.repeat(2049) }), expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'operation too large beats empty files', plan: plan([], { operation: 'o'.repeat(4097) }), expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'no files', plan: plan([]), expected: { code: 'INVALID_PLAN' } },
  { name: '501 files', plan: plan(files(501)), expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'maxFiles 1 with 2 files', plan: plan(files(2)), limits: { maxFiles: 1 }, expected: { code: 'PLAN_TOO_LARGE' } },
  { name: 'completeness UNKNOWN', plan: plan(undefined, { completeness: 'UNKNOWN' }), expected: { code: 'INVALID_PLAN' } },
  { name: 'completeness lowercase', plan: plan(undefined, { completeness: 'complete' }), expected: { code: 'INVALID_PLAN' } },
  { name: 'completeness checked before any file', plan: plan([file('NUL')], { completeness: 'X' }), expected: { code: 'INVALID_PLAN' } },
  // 8a-8e: file level
  {
    name: 'file extension shadows path',
    plan: plan([{ ...file('a.ts'), extensions: new Map([['path', 'b']]) }]),
    expected: { code: 'INVALID_FILE', fileIndex: 0 },
  },
  {
    name: 'file extension shadows edits',
    plan: plan([file('a.ts'), { ...file('b.ts'), extensions: new Map([['edits', []]]) }]),
    expected: { code: 'INVALID_FILE', fileIndex: 1 },
  },
  {
    name: 'extension collision beats bad path',
    plan: plan([{ ...file('NUL'), extensions: new Map([['sha256', 'x']]) }]),
    expected: { code: 'INVALID_FILE', fileIndex: 0 },
  },
  { name: 'second file NUL', plan: plan([file('a.ts'), file('NUL')]), expected: { code: 'INVALID_PATH', fileIndex: 1 } },
  { name: 'bad path beats bad sha256', plan: plan([file('a//b', undefined, 'x')]), expected: { code: 'INVALID_PATH', fileIndex: 0 } },
  { name: 'sha256 one char', plan: plan([file('a.ts', undefined, 'a')]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  { name: 'sha256 63 chars', plan: plan([file('a.ts', undefined, 'a'.repeat(63))]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  { name: 'sha256 65 chars', plan: plan([file('a.ts', undefined, 'a'.repeat(65))]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  { name: 'sha256 uppercase', plan: plan([file('a.ts', undefined, 'A'.repeat(64))]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  { name: 'sha256 with g', plan: plan([file('a.ts', undefined, 'g' + 'a'.repeat(63))]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  { name: 'no edits', plan: plan([file('a.ts', [])]), expected: { code: 'INVALID_FILE', fileIndex: 0 } },
  {
    name: 'empty edits beat per-file budget',
    plan: plan([file('a.ts', [])]),
    limits: { maxEditsPerFile: 0 },
    expected: { code: 'INVALID_FILE', fileIndex: 0 },
  },
  { name: '2001 edits in a file', plan: plan([file('a.ts', edits(2001))]), expected: { code: 'PLAN_TOO_LARGE', fileIndex: 0 } },
  // 8f-8j: edit level
  {
    name: 'edit extension shadows before',
    plan: plan([file('a.ts', [{ ...e(), extensions: new Map([['before', 'x']]) }])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  { name: 'startLine 0', plan: plan([file('a.ts', [e(), edit(0, 0, 1, 1, 'a', 'b')])]), expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 1 } },
  { name: 'endLine 0', plan: plan([file('a.ts', [edit(1, 0, 0, 1, 'a', 'b')])]), expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 } },
  {
    name: 'negative char (programmatic)',
    plan: plan([file('a.ts', [edit(1, -1, 1, 1, 'a', 'b')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'fractional line (programmatic)',
    plan: plan([file('a.ts', [edit(1.5, 0, 2, 1, 'a', 'b')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'line above u32 (programmatic)',
    plan: plan([file('a.ts', [edit(1, 0, 4294967296, 1, 'a', 'b')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'end line before start line',
    plan: plan([file('a.ts', [edit(2, 0, 1, 0, 'a', 'b')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'end char before start char',
    plan: plan([file('a.ts', [edit(1, 3, 1, 2, 'a', 'b')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  { name: 'before equals after', plan: plan([file('a.ts', [e('a', 'a')])]), expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 } },
  {
    name: 'empty insert of empty text',
    plan: plan([file('a.ts', [edit(1, 0, 1, 0, '', '')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  { name: 'after with a lone surrogate', plan: plan([file('a.ts', [e('a', '\ud83d')])]), expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 } },
  {
    name: 'provenance INFERRED',
    plan: plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b', 'INFERRED')])]),
    expected: { code: 'UNPROVEN_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'provenance CONFLICT',
    plan: plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b', 'CONFLICT')])]),
    expected: { code: 'UNPROVEN_EDIT', fileIndex: 0, editIndex: 0 },
  },
  { name: 'provenance empty', plan: plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b', '')])]), expected: { code: 'UNPROVEN_EDIT', fileIndex: 0, editIndex: 0 } },
  {
    name: 'provenance EXACT',
    plan: plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b', 'EXACT')])]),
    expected: { code: 'UNPROVEN_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'provenance lowercase exact_lsp',
    plan: plan([file('a.ts', [edit(1, 0, 1, 1, 'a', 'b', 'exact_lsp')])]),
    expected: { code: 'UNPROVEN_EDIT', fileIndex: 0, editIndex: 0 },
  },
  {
    name: 'provenance FUTURE_TIER on file 1 edit 2',
    plan: plan([file('a.ts'), file('b.ts', [e(), e(), edit(1, 0, 1, 1, 'a', 'b', 'FUTURE_TIER')])]),
    expected: { code: 'UNPROVEN_EDIT', fileIndex: 1, editIndex: 2 },
  },
  {
    name: 'INVALID_EDIT beats UNPROVEN_EDIT in one edit',
    plan: plan([file('a.ts', [edit(0, 0, 1, 1, 'a', 'b', 'INFERRED')])]),
    expected: { code: 'INVALID_EDIT', fileIndex: 0, editIndex: 0 },
  },
  // 8k-8n
  { name: 'exact duplicate path', plan: plan([file('a.ts'), file('b.ts'), file('a.ts')]), expected: { code: 'INVALID_PLAN', fileIndex: 2 } },
  { name: 'case alias', plan: plan([file('Src/Foo.rs'), file('src/foo.RS')]), expected: { code: 'INVALID_PLAN', fileIndex: 1 } },
  {
    name: "file's own structural error beats its duplicate path",
    plan: plan([file('a.ts'), file('a.ts', [])]),
    expected: { code: 'INVALID_FILE', fileIndex: 1 },
  },
  {
    name: 'max_total_edits 1 with 2 files (no indices)',
    plan: plan([file('a.ts'), file('b.ts')]),
    limits: { maxTotalEdits: 1 },
    expected: { code: 'PLAN_TOO_LARGE' },
  },
  {
    name: 'earlier budget overflow beats a later bad path',
    plan: plan([file('a.ts', edits(2)), file('NUL')]),
    limits: { maxTotalEdits: 1 },
    expected: { code: 'PLAN_TOO_LARGE' },
  },
  { name: 'text budget 1 with a→b (2 bytes)', plan: plan([file('a.ts')]), limits: { maxTotalTextBytes: 1 }, expected: { code: 'PLAN_TOO_LARGE' } },
  {
    name: 'text budget counts UTF-8 (é→ü is 4 bytes)',
    plan: plan([file('a.ts', [e('\u00e9', '\u00fc')])]),
    limits: { maxTotalTextBytes: 3 },
    expected: { code: 'PLAN_TOO_LARGE' },
  },
  { name: 'zero limits make checks fail', plan: plan([file('a.ts')]), limits: { maxFiles: 0 }, expected: { code: 'PLAN_TOO_LARGE' } },
];

describe('validateEditPlan: fixed check order, codes and indices', () => {
  for (const c of cases) {
    const { name } = c;
    it(name, () => {
      expectFailure(() => validateEditPlan(c.plan, c.limits), c.expected);
    });
  }
});

describe('validateEditPlan: accepted plans and totals', () => {
  it('a delete of "a" counts 1 edit and 1 text byte', () => {
    expect(validateEditPlan(plan([file('a.ts', [edit(1, 0, 1, 1, 'a', '')])]))).toEqual({
      files: 1,
      totalEdits: 1,
      totalTextBytes: 1,
    });
  });
  it('500 files and 2000 edits per file are at the limit and pass', () => {
    expect(validateEditPlan(plan(files(500))).files).toBe(500);
    expect(validateEditPlan(plan([file('a.ts', edits(2000))])).totalEdits).toBe(2000);
  });
  it('operation of exactly 4096 bytes passes; any operation name is accepted', () => {
    expect(validateEditPlan(plan(undefined, { operation: 'o'.repeat(4096) })).files).toBe(1);
    expect(validateEditPlan(plan(undefined, { operation: 'my-own-op' })).files).toBe(1);
  });
  it('text budget 2 passes a→b', () => {
    expect(validateEditPlan(plan([file('a.ts')]), { maxTotalTextBytes: 2 }).totalTextBytes).toBe(2);
  });
  it('COMPLETE and PARTIAL are accepted, absent completeness too', () => {
    for (const completeness of ['COMPLETE', 'PARTIAL', undefined]) {
      expect(validateEditPlan(plan(undefined, { completeness })).files).toBe(1);
    }
  });
  it('all four provenance labels are applicable', () => {
    const labels = ['EXACT_LSP', 'RESOLVED', 'EXTRACTED', 'LEXICAL_EXACT'];
    const p = plan([
      file(
        'a.ts',
        labels.map((label) => edit(1, 0, 1, 1, 'a', 'b', label)),
      ),
    ]);
    expect(validateEditPlan(p).totalEdits).toBe(4);
  });
  it('does not look at overlap or sources: 2000 identical overlapping edits validate', () => {
    expect(validateEditPlan(plan([file('a.ts', edits(2000), HASH)])).totalEdits).toBe(2000);
  });
  it('unknown extension keys (Operation, schema_version, extensions) are not collisions', () => {
    const extensions = new Map([
      ['Operation', 1],
      ['schema_version', 2],
      ['extensions', 3],
    ]);
    expect(validateEditPlan(plan(undefined, { extensions })).files).toBe(1);
  });
});
