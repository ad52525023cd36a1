// End-to-end `gcpatch solve` (docs/driver.md "Re-resolving conflicted files") with the built CLI and real git: a merge without the
// driver that leaves every fixture triple git cannot merge conflicted, re-resolved from the index;
// `git checkout --conflict=diff3` then solve; a rebase; markers staged by mistake.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasConflictMarkers } from '../../src/textmerge/line-based.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { commit, git, initRepo } from '../driver/helpers.js';
import { spawnSync } from 'node:child_process';

const FIXTURES = join(ROOT, 'fixtures/merge');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const solve = (cwd: string, args: string[] = []): { status: number; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [BIN, 'solve', ...args], { cwd, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
};

/** Fixture cases the driver resolves (no markers expected, exit 0), with default marker size. */
const resolvable = readdirSync(FIXTURES)
  .filter((d) => existsSync(join(FIXTURES, d, 'Base.gc')))
  .filter((d) => {
    const o = existsSync(join(FIXTURES, d, 'options.json'))
      ? (JSON.parse(readFileSync(join(FIXTURES, d, 'options.json'), 'utf8')) as { exitCode?: number; markerSize?: number })
      : {};
    return (o.exitCode ?? (hasConflictMarkers(readFileSync(join(FIXTURES, d, 'Expected.gc'))) ? 1 : 0)) === 0 && o.markerSize === undefined;
  })
  .sort();

describe('gcpatch solve against git', () => {
  it("re-resolves, from git's index, every fixture file a plain git merge leaves conflicted", () => {
    const repo = initRepo();
    made.push(repo);
    const files = (side: string): Record<string, Buffer> => Object.fromEntries(resolvable.map((n) => [`${n}.gc`, readFileSync(join(FIXTURES, n, side))]));
    commit(repo, files('Base.gc'), 'base');
    git(repo, ['checkout', '-q', '-b', 'feature']);
    commit(repo, files('Right.gc'), 'theirs');
    git(repo, ['checkout', '-q', 'main']);
    commit(repo, files('Left.gc'), 'ours');
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    const conflicted = [...new Set(git(repo, ['diff', '--name-only', '--diff-filter=U']).stdout.split('\n').filter(Boolean))];
    expect(conflicted.length).toBeGreaterThanOrEqual(8);
    const r = solve(repo, ['--json']);
    const report = JSON.parse(r.stdout) as { ok: boolean; files: { file: string; source: string; status: string }[] };
    expect(report.files.map((f) => f.file)).toEqual([...conflicted].sort());
    for (const f of report.files) {
      expect(f).toMatchObject({ source: 'index', status: 'resolved' });
      const name = f.file.replace(/\.gc$/, '');
      expect(readFileSync(join(repo, f.file)).toString('latin1')).toBe(readFileSync(join(FIXTURES, name, 'Expected.gc')).toString('latin1'));
    }
    expect(r.status).toBe(0);
    // Nothing staged: the files are still unmerged until the user adds them.
    expect(git(repo, ['diff', '--name-only', '--diff-filter=U']).stdout.trim()).not.toBe('');
    console.log(`solve from the index: ${report.files.length} conflicted fixture files of ${resolvable.length}, all resolved exactly`);
  });

  it('git checkout --conflict=diff3 re-creates the conflict; solve FILE resolves it again; a real conflict stays (exit 1)', () => {
    const repo = initRepo();
    made.push(repo);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 2)\n', 'c.gc': '(def c 1)\n' }, 'base');
    git(repo, ['checkout', '-q', '-b', 'feature']);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 20)\n', 'c.gc': '(def c 3)\n' }, 'theirs');
    git(repo, ['checkout', '-q', 'main']);
    commit(repo, { 'a.gc': '(def a 10)\n(def b 2)\n', 'c.gc': '(def c 2)\n' }, 'ours');
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    let r = solve(repo);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^a\.gc: resolved \(structural\) \[from git's index\]$/m);
    expect(r.stdout).toMatch(/^c\.gc: 1 conflict\(s\) remain \(structural\)/m);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe('(def a 10)\n(def b 20)\n');
    // Labels follow the markers git wrote (HEAD / feature).
    expect(readFileSync(join(repo, 'c.gc'), 'utf8')).toBe('<<<<<<< HEAD\n(def c 2)\n=======\n(def c 3)\n>>>>>>> feature\n');
    expect(git(repo, ['checkout', '--conflict=diff3', '--', 'a.gc', 'c.gc']).status).toBe(0);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toMatch(/^\|{7} /m);
    r = solve(repo, ['a.gc', 'c.gc']);
    expect(r.status).toBe(1);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe('(def a 10)\n(def b 20)\n');
    // diff3 markers asked for with --conflict=diff3 stay diff3.
    expect(readFileSync(join(repo, 'c.gc'), 'utf8')).toMatch(/^<<<<<<< ours\n\(def c 2\)\n\|{7} base\n\(def c 1\)\n={7}\n\(def c 3\)\n>>>>>>> theirs\n$/);
  });

  it('works in a rebase, and from diff3 markers staged by mistake', () => {
    const repo = initRepo();
    made.push(repo);
    git(repo, ['config', 'merge.conflictStyle', 'diff3']);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 2)\n' }, 'base');
    git(repo, ['checkout', '-q', '-b', 'feature']);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 20)\n' }, 'theirs');
    git(repo, ['checkout', '-q', 'main']);
    commit(repo, { 'a.gc': '(def a 10)\n(def b 2)\n' }, 'ours');
    git(repo, ['checkout', '-q', 'feature']);
    expect(git(repo, ['rebase', 'main']).status).not.toBe(0);
    expect(solve(repo).status).toBe(0);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe('(def a 10)\n(def b 20)\n');
    git(repo, ['rebase', '--abort']);
    git(repo, ['checkout', '-q', 'main']);
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    git(repo, ['add', 'a.gc']); // markers staged: no longer unmerged
    const r = solve(repo, ['a.gc', '--json']);
    expect(JSON.parse(r.stdout).files[0]).toMatchObject({ source: 'markers', status: 'resolved' });
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe('(def a 10)\n(def b 20)\n');
    writeFileSync(join(repo, 'plain.gc'), '<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n');
    const bad = solve(repo, ['plain.gc']);
    expect(bad.status).toBe(10);
    expect(bad.stderr).toMatch(/^plain\.gc:1: solve\/no-base: .*git checkout --conflict=diff3 -- plain\.gc/m);
  });
  it('leaves a file the user resolved by hand alone (no markers left) unless --force', () => {
    const repo = initRepo();
    made.push(repo);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 2)\n' }, 'base');
    git(repo, ['checkout', '-q', '-b', 'feature']);
    commit(repo, { 'a.gc': '(def a 1)\n(def b 20)\n' }, 'theirs');
    git(repo, ['checkout', '-q', 'main']);
    commit(repo, { 'a.gc': '(def a 10)\n(def b 2)\n' }, 'ours');
    expect(git(repo, ['merge', '-q', '--no-edit', 'feature']).status).toBe(1);
    const mine = '(def a 10)\n(def b 20)\n(def mine 3)\n';
    writeFileSync(join(repo, 'a.gc'), mine); // resolved by hand, not yet git-added
    const r = solve(repo, ['--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).files[0]).toMatchObject({ file: 'a.gc', status: 'skipped' });
    expect(JSON.parse(r.stdout).files[0].message).toMatch(/resolved by hand/);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe(mine);
    const forced = solve(repo, ['--force', 'a.gc']);
    expect(forced.status).toBe(0);
    expect(readFileSync(join(repo, 'a.gc'), 'utf8')).toBe('(def a 10)\n(def b 20)\n');
  });
});
