// The words `gcpatch merge` and `gcpatch diff` use for conflicts and changes: definitions by name,
// module and line, and which side deleted or changed what.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConflict, describeReplacement, formLabel } from '../../src/cli/describe.js';
import { readTerm } from '../../src/coreform/read.js';
import type { WorkspaceSource } from '../../src/git/source.js';
import { decodeMergeReport } from '../../src/merge/report.js';
import { mergeWorkspaces } from '../../src/merge/rules.js';
import { ws } from '../diff/helpers.js';

const term = (s: string) => readTerm(new TextEncoder().encode(s));

function side(modules: Record<string, string>, onDisk = false): WorkspaceSource {
  let packageDir = '/nonexistent';
  if (onDisk) {
    packageDir = mkdtempSync(join(tmpdir(), 'gcpatch-describe-'));
    for (const [p, text] of Object.entries(modules)) {
      mkdirSync(join(packageDir, p, '..'), { recursive: true });
      writeFileSync(join(packageDir, p), text);
    }
  }
  return { spec: 'x', origin: onDisk ? 'directory' : 'revision', workspace: ws(modules), packageDir, commit: undefined, label: 'x' };
}

function conflictsOf(b: WorkspaceSource, l: WorkspaceSource, r: WorkspaceSource): string[] {
  const { report } = mergeWorkspaces(b.workspace, l.workspace, r.workspace);
  return decodeMergeReport(report).conflicts.flatMap((c) => describeConflict(c, { base: b, left: l, right: r }));
}

describe('formLabel', () => {
  it.each([
    ['(def ledger/core::total (fn (x) x))', '(def ledger/core::total …)'],
    ["(def ::meta '{:exports []})", '(def ::meta …)'],
    ['(print "hello")', '(print "hello")'],
    [`(f ${'x '.repeat(60)})`, `(f ${'x '.repeat(28)}…`], // 60 characters in all
  ])('%s', (text, label) => {
    expect(formLabel(term(text))).toBe(label);
  });
});

describe('describeConflict', () => {
  const base = { 'm.gc': '(def m/a::x 1)\n(def m/a::y 2)\n', 'gone.gc': '(def g 1)\n' };

  it('a divergent edit names the definition, with the line when the left side is on disk', () => {
    const left = { ...base, 'm.gc': '; note\n\n(def m/a::x 1)\n(def m/a::y 20)\n' };
    const right = { ...base, 'm.gc': '(def m/a::x 1)\n(def m/a::y 21)\n' };
    expect(conflictsOf(side(base), side(left), side(right))).toEqual(['m.gc (def m/a::y …): left and right both changed it, differently']);
    expect(conflictsOf(side(base), side(left, true), side(right))).toEqual(['m.gc:4 (def m/a::y …): left and right both changed it, differently']);
  });

  it('a divergent edit that renames shows each side', () => {
    const left = { ...base, 'm.gc': '(def m/a::x 1)\n(def m/a::left 2)\n' };
    const right = { ...base, 'm.gc': '(def m/a::x 1)\n(def m/a::right 2)\n' };
    expect(conflictsOf(side(base), side(left), side(right))).toEqual([
      'm.gc (def m/a::y …) (left: (def m/a::left …), right: (def m/a::right …)): left and right both changed it, differently',
    ]);
  });

  it('delete/modify says which side deleted', () => {
    const { 'gone.gc': _, ...withoutGone } = base;
    const changed = { ...base, 'gone.gc': '(def g 2)\n' };
    expect(conflictsOf(side(base), side(withoutGone), side(changed))).toEqual([
      'gone.gc: left deleted the module; right changed it (1 form in base, 1 form on right)',
    ]);
    expect(conflictsOf(side(base), side(changed), side(withoutGone))).toEqual([
      'gone.gc: right deleted the module; left changed it (1 form in base, 1 form on left)',
    ]);
  });

  it('divergent add and structural divergence name the forms', () => {
    expect(conflictsOf(side(base), side({ ...base, 'n.gc': '(def n 1)\n' }), side({ ...base, 'n.gc': '(def n 2)\n(def o 3)\n' }))).toEqual([
      'n.gc: left and right both added the module, differently (left 1 form, right 2 forms)',
    ]);
    expect(
      conflictsOf(side(base), side({ ...base, 'm.gc': '(def m/a::x 1)\n' }), side({ ...base, 'm.gc': '(def m/a::x 1)\n(def m/a::y 2)\n(def m/a::z 3)\n' })),
    ).toEqual([
      "m.gc: left and right changed the module's forms incompatibly (base 2 forms)",
      '    left  1 form: -(def m/a::y …)',
      '    right 3 forms: +(def m/a::z …)',
    ]);
  });
});

describe('describeReplacement', () => {
  it('names the definition, the rename, and the line in a target on disk', () => {
    const b = side({ 'm.gc': '(def m/a::x 1)\n(def m/a::y 2)\n' });
    const t = side({ 'm.gc': '(def m/a::x 1)\n\n\n(def m/a::z 2)\n' }, true);
    expect(describeReplacement('m.gc', 1, b, t)).toBe('m.gc:4 (def m/a::y …) -> (def m/a::z …)');
    expect(describeReplacement('m.gc', 0, b, t)).toBe('m.gc:1 (def m/a::x …)');
    expect(describeReplacement('m.gc', 1, b, undefined)).toBe('m.gc (def m/a::y …)');
  });
});
