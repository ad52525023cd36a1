// `gcpatch merge` and `gcpatch diff` on git revisions of a real repository: in-process
// (test/helpers/run-cli.ts), and through the built CLI (bin/gcpatch.js) for an unknown revision and a parse error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeAddress } from '../../src/coreform/hash.js';
import { printTerm } from '../../src/coreform/print.js';
import { kwMap } from '../../src/coreform/term.js';
import { diffWorkspaces } from '../../src/diff/diff.js';
import { mergeWorkspaces } from '../../src/merge/rules.js';
import { ws } from '../diff/helpers.js';
import { manifest, tempRepo, type TempRepo } from '../git/repo-helpers.js';
import { gcpatch } from '../helpers/cli.js';
import { runCli } from '../helpers/run-cli.js';

// A real repository: main holds the base package in pkg/; branches a and b edit it.
const BASE = { 'a.gc': '(def a 1)\n(def b 2)\n', 'old.gc': '(def old 1)\n', 'keep.gc': '(def k 1)\n' };
const A = { ...BASE, 'a.gc': '; left edits form 0\n(def a 10)\n(def b 2)\n', 'new.gc': '(def n (fn (x y) (f x y)))\n' };
const B = { 'a.gc': '(def a 1)\n(def b 20)\n', 'keep.gc': '(def k 1)\n' };

const files = (modules: Record<string, string>) => ({
  'pkg/package.toml': manifest('demo', Object.keys(modules).sort()),
  ...Object.fromEntries(Object.entries(modules).map(([p, s]) => [`pkg/${p}`, s])),
});

let t: TempRepo;
beforeAll(async () => {
  t = tempRepo();
  t.commit('base', files(BASE));
  t.git('checkout', '-q', '-b', 'a');
  t.commit('left', { ...files(A) });
  t.git('checkout', '-q', 'main');
  t.git('checkout', '-q', '-b', 'b');
  t.commit('right', { ...files(B), 'pkg/old.gc': null });
  t.git('checkout', '-q', 'main');
  t.git('checkout', '-q', '-b', 'c');
  t.commit('conflicting', { 'pkg/a.gc': '(def a 11)\n(def b 2)\n', 'pkg/keep.gc': '(def k 2)\n' });
  t.git('checkout', '-q', 'main');
  t.git('checkout', '-q', '-b', 'd');
  t.commit('conflicting too', { ...files({ 'a.gc': '(def a 12)\n(def b 2)\n', 'old.gc': BASE['old.gc'] }), 'pkg/keep.gc': null });
  t.git('checkout', '-q', 'main');
});
afterAll(async () => t.cleanup());

describe('gcpatch merge in a real git repository (built CLI)', () => {
  it('merges $(git merge-base a b), a and b cleanly and writes the expected report', async () => {
    const base = t.git('merge-base', 'a', 'b');
    const out = join(t.dir, 'merge.report');
    const r = await runCli(['merge', '--base', base, '--left', 'a', '--right', 'b', '--intent', 'merge a and b', '--report', out], { cwd: t.dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('merged cleanly: 3 modules');
    expect(r.stdout).toContain('verified: the report passed the independent merge verifier');
    const expected = mergeWorkspaces(ws(BASE), ws(A), ws(B), { intent: 'merge a and b' }).report;
    expect(readFileSync(out, 'utf8')).toBe(printTerm(expected));
    expect(printTerm(expected)).toContain('"new.gc"');
  });

  it('--json gives the report projection with the merged modules and the embedded diff', async () => {
    const r = await runCli(['merge', '--base', 'main', '--left', 'a:pkg', '--right', 'b:./pkg/a.gc', '--json'], { cwd: t.dir });
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.ok).toBe(true);
    expect(json.sources.left).toMatchObject({ origin: 'revision', commit: t.git('rev-parse', 'a') });
    expect(json.report.merged.map((m: { 'module-path': string }) => m['module-path'])).toEqual(['a.gc', 'keep.gc', 'new.gc']);
    expect(json.report.diff.stats).toEqual({ additions: 1, removals: 1, replacements: 2 });
  });

  it('exits 1 naming every conflict by module, line, definition and side, and no merged workspace', async () => {
    const r = await runCli(['merge', '--base', 'main', '--left', 'a', '--right', 'c'], { cwd: join(t.dir, 'pkg') });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('1 conflict; no merged workspace or patch is produced:');
    expect(r.stdout).toContain('  1. form/divergent-edit  a.gc (def a …): left and right both changed it, differently\n');
    // Read from the work tree, the left side gives the line (after the comment line of A's a.gc).
    t.git('checkout', '-q', 'a');
    const onDisk = await runCli(['merge', '--base', 'main', '--left', 'pkg', '--right', 'c'], { cwd: t.dir });
    t.git('checkout', '-q', 'main');
    expect(onDisk.stdout).toContain('  1. form/divergent-edit  a.gc:2 (def a …): left and right both changed it, differently\n');
    const cd = await runCli(['merge', '--base', 'main', '--left', 'c', '--right', 'd'], { cwd: t.dir });
    expect(cd.stdout).toContain('  2. module/delete-modify  keep.gc: right deleted the module; left changed it (1 form in base, 1 form on left)\n');
    expect(cd.stdout).toContain('  module/delete-modify: one branch deleted a module changed by the other branch\n');
    expect(cd.stdout.split('no merged workspace or patch is produced:\n')[1]).not.toMatch(/[0-9a-f]{12}/);
    const j = await runCli(['merge', '--base', 'main', '--left', 'c', '--right', 'd', '--json'], { cwd: t.dir });
    expect(j.status).toBe(1);
    const json = JSON.parse(j.stdout);
    expect(json.ok).toBe(false);
    expect(json.report.merged).toBeNull();
    expect(json.report.diff).toBeNull();
    expect(json.report.conflicts.map((c: { code: string; 'module-path': string }) => `${c['module-path']} ${c.code}`)).toEqual([
      'a.gc form/divergent-edit',
      'keep.gc module/delete-modify',
    ]);
  });

  it('--store puts the report bytes in <left package>/.genesis/store/<blake3>', async () => {
    const r = await runCli(['merge', '--base', 'main', '--left', 'pkg', '--right', 'b', '--store'], { cwd: t.dir });
    expect(r.status).toBe(0);
    const address = /report stored as ([0-9a-f]{64})/.exec(r.stdout)![1]!;
    const stored = readFileSync(join(t.dir, 'pkg', '.genesis', 'store', address));
    expect(storeAddress(stored)).toBe(address);
  });
});

describe('gcpatch diff (built CLI)', () => {
  it('diffs a directory against a revision and matches the library report', async () => {
    const out = join(t.dir, 'diff.report');
    const r = await runCli(['diff', '--base', 'pkg', '--target', 'a', '--intent', 'sync', '--report', out], { cwd: t.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('2 ops: 1 replace-node, 1 add-module, 0 remove-module');
    expect(r.stdout).toContain('    replace-node   a.gc (def a …)\n');
    // With the target on disk, the line of the changed definition in it.
    const back = await runCli(['diff', '--base', 'a', '--target', 'pkg'], { cwd: t.dir });
    expect(back.stdout).toContain('    replace-node   a.gc:1 (def a …)\n');
    expect(readFileSync(out, 'utf8')).toBe(printTerm(diffWorkspaces(ws(BASE), ws(A), { intent: 'sync', provenance: kwMap({}) }).report));
  });

  it('copies --provenance into the patch', async () => {
    t.write({ 'prov.gc': '{:tool "e2e" :run 1}' });
    const r = await runCli(['diff', '--base', 'main', '--target', 'b', '--provenance', 'prov.gc', '--json'], { cwd: t.dir });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).report.patch.provenance).toEqual({ run: 1, tool: 'e2e' });
  });

  it('exits 10 on invalid input and 70 on a missing commit', async () => {
    const unknown = gcpatch(['diff', '--base', 'nope', '--target', 'a'], { cwd: t.dir });
    expect(unknown.status).toBe(10);
    expect(unknown.stderr).toContain('git/unknown-revision');
    t.write({ 'broken/package.toml': manifest('x', ['m.gc']), 'broken/m.gc': '(def x "unterminated)\n' });
    const parse = gcpatch(['diff', '--base', 'broken', '--target', 'broken'], { cwd: t.dir });
    expect(parse.status).toBe(10);
    expect(parse.stderr).toContain('core/parse/unexpected');
    const missing = await runCli(['diff', '--base', '0123456789abcdef0123456789abcdef01234567', '--target', 'a'], { cwd: t.dir });
    expect(missing.status).toBe(70);
    expect(missing.stderr).toContain('git/missing-commit');
  });
});
