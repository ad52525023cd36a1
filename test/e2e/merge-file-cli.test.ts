/**
 * End-to-end `gcpatch merge-file` (the built CLI) against the bundled driver (`driver/dist/launch.cjs`)
 * run as git runs it, on a clean, a conflicted and a merge-style triple of fixtures/merge; its exit
 * paths (0, the number of conflicts capped at 127; errors exit 10 or 70 like every gcpatch command), -o, -p and --json. Every fixture is
 * checked in-process by test/textmerge/solve.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countConflicts } from '../../src/textmerge/solve.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { git, initRepo } from '../helpers/git.js';

const FIXTURES = join(ROOT, 'fixtures/merge');
const LAUNCH = join(ROOT, 'driver/dist/launch.cjs');
const bytes = (name: string, f: string): Buffer => readFileSync(join(FIXTURES, name, f));
const cli = (dir: string, args: string[]) => spawnSync(process.execPath, [BIN, 'merge-file', ...args], { cwd: dir });

describe('gcpatch merge-file: byte-identical to the bundled driver', () => {
  const triples = [
    { name: 'both-append-at-end', style: 'diff3', size: 7, conflicts: 0 },
    { name: 'same-form-same-line-conflict', style: 'diff3', size: 7, conflicts: 1 },
    { name: 'marker-size-9-plain-style', style: 'merge', size: 9, conflicts: 1 },
  ] as const;
  for (const t of triples) {
    it(`${t.name} (${t.conflicts === 0 ? 'clean' : 'conflict'}, ${t.style} markers of size ${t.size})`, () => {
      const dir = initRepo(tempDir('gcpatch-mf-'));
      git(dir, 'config', 'merge.conflictStyle', t.style);
      mkdirSync(join(dir, 'sub'));
      const files = { O: 'Base.gc', A: 'Left.gc', B: 'Right.gc', 'ours.gc': 'Left.gc' };
      for (const [to, from] of Object.entries(files)) writeFileSync(join(dir, to), bytes(t.name, from));
      const size = String(t.size);
      const d = spawnSync(process.execPath, [LAUNCH, 'O', 'A', 'B', size, `${t.name}.gc`, 'base', 'ours', 'theirs'], { cwd: dir });
      const m = cli(dir, ['--marker-size', size, '-L', 'ours', '-L', 'base', '-L', 'theirs', '-o', 'out.gc', 'O', 'ours.gc', 'B']);
      const driverResult = readFileSync(join(dir, 'A'));
      const result = readFileSync(join(dir, 'out.gc'));
      expect(result.toString('latin1')).toBe(driverResult.toString('latin1'));
      expect(result.equals(bytes(t.name, 'Expected.gc'))).toBe(true);
      expect(d.status).toBe(t.conflicts === 0 ? 0 : 1);
      expect(m.status).toBe(t.conflicts === 0 ? 0 : countConflicts(result, t.size));
      expect(countConflicts(result, t.size)).toBe(t.conflicts);
      // -p writes the same bytes to stdout and leaves OURS alone.
      const p = cli(dir, ['--marker-size', size, '-p', 'O', 'ours.gc', 'B']);
      expect(Buffer.from(p.stdout).equals(result)).toBe(true);
      expect(p.status).toBe(m.status);
      expect(readFileSync(join(dir, 'ours.gc')).equals(bytes(t.name, 'Left.gc'))).toBe(true);
      // --json: the summary on stdout, the result in OUT.
      const j = cli(dir, ['--json', '--marker-size', size, '-o', 'json.gc', 'O', 'ours.gc', 'B']);
      expect(j.status).toBe(m.status);
      expect(JSON.parse(j.stdout.toString('utf8'))).toMatchObject({ ok: true, conflicts: t.conflicts, output: 'json.gc' });
      expect(readFileSync(join(dir, 'json.gc')).equals(result)).toBe(true);
      // Run from a subfolder, the driver and merge-file read the same merge.conflictStyle.
      const s = cli(join(dir, 'sub'), ['--marker-size', size, '-p', '../O', '../ours.gc', '../B']);
      expect(Buffer.from(s.stdout).equals(result)).toBe(true);
    });
  }
});

describe('merge-file: git merge-file conventions', () => {
  it('errors exit with the exit-code table (70 unreadable, 10 usage), with --json too; usage errors name the fix', () => {
    const dir = tempDir('gcpatch-mf-err-');
    writeFileSync(join(dir, 'a.gc'), '(def a 1)\n');
    let r = spawnSync(process.execPath, [BIN, 'merge-file', '--json', 'nope.gc', 'a.gc', 'a.gc'], { cwd: dir, encoding: 'utf8' });
    expect(r.status).toBe(70);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'merge-file/unreadable', exitCode: 70, location: { file: 'nope.gc' } } });
    // All three missing, as a new user types it: exit 70, one line naming the first file.
    r = spawnSync(process.execPath, [BIN, 'merge-file', 'a', 'b', 'c'], { cwd: dir, encoding: 'utf8' });
    expect([r.status, r.stdout, r.stderr]).toEqual([70, '', 'a: merge-file/unreadable: cannot read a: ENOENT; check the path\n']);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    r = spawnSync(process.execPath, [BIN, 'merge-file', '-p', '-o', 'x', 'a.gc', 'a.gc', 'a.gc'], { cwd: dir, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([10, 'merge-file/usage: use either -p or -o, not both\n']);
    r = spawnSync(process.execPath, [BIN, 'merge-file', '--help'], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /number of conflicts \(0 clean, at most 127, as git merge-file\); on errors the table's codes \(10 bad option value, 70 unreadable file\)/,
    );
  });

  it('caps the status at 127 conflicts', () => {
    const dir = tempDir('gcpatch-mf-many-');
    // 130 separate conflicting lines in a file that does not read as CoreForm (line merge).
    const lines = (v: string): string => Array.from({ length: 130 }, (_, i) => `(${i} ${v}\nkeep ${i}\nk\nk\nk\n`).join('');
    writeFileSync(join(dir, 'O'), lines('o'));
    writeFileSync(join(dir, 'A'), lines('a'));
    writeFileSync(join(dir, 'B'), lines('b'));
    const r = spawnSync(process.execPath, [BIN, 'merge-file', '-o', 'out', 'O', 'A', 'B'], { cwd: dir });
    expect(r.status).toBe(127);
    expect(countConflicts(readFileSync(join(dir, 'out')), 7)).toBe(130);
  });
});
