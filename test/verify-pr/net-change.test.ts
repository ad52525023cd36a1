// net-change.ts: which items a commit inherits as unexplained, and how a dirty net difference is judged.
import { describe, expect, it } from 'vitest';
import { PackageFindings } from '../../src/verify-pr/report/findings.js';
import { differingFrom, inheritedDirty, judgeNetChange, keyItem, moduleItem, policyItem } from '../../src/verify-pr/checks/net-change.js';
import type { CommitPackageSnapshot } from '../../src/verify-pr/evidence/package-at-commit.js';
import type { TomlTable } from '../../src/workspace/manifest-write.js';

/** A snapshot with modules given by their hash only, a manifest table and policy texts. */
function snap(modules: Record<string, string>, table: TomlTable, policies: Record<string, string> = {}): CommitPackageSnapshot {
  const mods = Object.entries(modules).map(([path, hash]) => ({ path, file: `p/${path}`, bytes: new Uint8Array(), forms: [], hash, pin: hash }));
  return {
    commit: 'c',
    dir: 'p',
    manifestPath: 'p/package.toml',
    manifestText: '',
    manifest: {} as CommitPackageSnapshot['manifest'],
    table,
    modules: mods,
    byPath: new Map(mods.map((m) => [m.path, m])),
    policies: new Map(Object.entries(policies).map(([path, text]) => [path, { path, file: `p/${path}`, text, referenced: path === 'caps.toml' }])),
  };
}

const base = snap({ 'a.gc': 'h1', 'b.gc': 'h2' }, { name: 'p', limits: { step_limit: 10n } }, { 'caps.toml': 'allow = []\n' });

describe('differingFrom', () => {
  it('lists the modules, keys and policies whose content differs from the base', () => {
    const s = snap({ 'a.gc': 'h1', 'b.gc': 'h9', 'c.gc': 'h3' }, { name: 'p', limits: { step_limit: 99n } }, { 'caps.toml': 'allow = ["x/y::z"]\n' });
    expect([...differingFrom(base, s)].sort()).toEqual([keyItem('limits'), moduleItem('b.gc'), moduleItem('c.gc'), policyItem('caps.toml')].sort());
    expect(differingFrom(base, base).size).toBe(0);
  });
});

describe('inheritedDirty', () => {
  const clean = snap({ 'a.gc': 'h1', 'b.gc': 'h2' }, { name: 'p', limits: { step_limit: 10n } });
  const dirty = snap({ 'a.gc': 'h1', 'b.gc': 'h7' }, { name: 'p', limits: { step_limit: 99n } });
  it('a single parent passes its dirty items on', () => {
    expect([...inheritedDirty(dirty, [dirty], [new Set([moduleItem('b.gc')])])]).toEqual([moduleItem('b.gc')]);
  });
  it("a merge passes an item on clean only when it holds a clean parent's content, whichever parent is first", () => {
    const d = new Set([moduleItem('b.gc'), keyItem('limits')]);
    expect(inheritedDirty(clean, [dirty, clean], [d, new Set()]).size).toBe(0);
    expect([...inheritedDirty(dirty, [clean, dirty], [new Set(), d])].sort()).toEqual([...d].sort());
    // content of neither parent: dirty when any parent is dirty
    const other = snap({ 'a.gc': 'h1', 'b.gc': 'h8' }, { name: 'p', limits: { step_limit: 10n } });
    expect([...inheritedDirty(other, [clean, dirty], [new Set(), d])]).toEqual([moduleItem('b.gc')]);
  });
});

describe('judgeNetChange', () => {
  const head = snap({ 'a.gc': 'h5', 'b.gc': 'h6' }, { name: 'p', limits: { step_limit: 99n } }, { 'caps.toml': 'allow = []\n[op."io/net::http-request"]\n' });
  it('judges only dirty differences: an evidence-covered module is an error, another a warning; keys and policies by the table', () => {
    const out = new PackageFindings('p');
    const n = judgeNetChange(
      {
        base,
        head,
        dirty: new Set([moduleItem('a.gc'), moduleItem('b.gc'), keyItem('limits'), policyItem('caps.toml')]),
        evidenceCovered: new Set(['a.gc']),
        dir: 'p',
      },
      out,
    );
    expect(n).toBe(4);
    expect(out.findings.map((f) => [f.severity, f.code, f.file])).toEqual([
      ['error', 'audit/replay-module-mismatch', 'p/a.gc'],
      ['warning', 'audit/unexplained-change', 'p/b.gc'],
      ['error', 'audit/limits-raised', 'p/package.toml'],
      ['error', 'audit/caps-widened', 'p/caps.toml'],
    ]);
  });
  it('records nothing for clean differences, and nothing twice', () => {
    const out = new PackageFindings('p');
    expect(judgeNetChange({ base, head, dirty: new Set(), evidenceCovered: new Set(['a.gc']), dir: 'p' }, out)).toBe(0);
    out.fail('module', 'a.gc', 'replay', { code: 'audit/replay-module-mismatch', message: 'already', file: 'p/a.gc' });
    expect(judgeNetChange({ base, head, dirty: new Set([moduleItem('a.gc')]), evidenceCovered: new Set(['a.gc']), dir: 'p' }, out)).toBe(0);
  });
});
