// `gcpatch merge-file` and `gcpatch solve` (issue #15 item 4) on every triple of fixtures/merge:
// merge-file's bytes and status against the bundled driver run as git runs it; solve against git's
// conflicted output (diff3 markers) of every triple the driver resolves.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasConflictMarkers } from '../../src/textmerge/line-based.js';
import { countConflicts, sidesFromMarkers, solveFile } from '../../src/textmerge/solve.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { git, initRepo, tmp } from './helpers.js';

const FIXTURES = join(ROOT, 'fixtures/merge');
const LAUNCH = join(ROOT, 'driver/dist/launch.cjs');
const cases = readdirSync(FIXTURES)
  .filter((d) => existsSync(join(FIXTURES, d, 'Base.gc')))
  .sort();

interface CaseOptions {
  markerSize?: number;
  style?: 'merge' | 'diff3';
  exitCode?: 0 | 1;
}

/**
 * What markers cannot carry, so solve from markers cannot redo exactly (from git's index it can:
 * test/e2e/solve.test.ts). Each is asserted to fail in the stated, safe way.
 */
const MARKER_LIMITS: Record<string, { why: string; status: 'resolved' | 'conflicts' }> = {
  // git merge-file ends a side that has no final newline with one before the next marker.
  'cr-only-line-endings': { why: 'a side without a final line feed gains one in the markers', status: 'resolved' },
  // git already applied one side's move at the old place (a clean hunk), so the base read back
  // from the markers lacks the form there and the edit of the other side looks like delete/modify.
  'reorder-one-side-edit-other': { why: "git's clean hunks are already merged into the text outside the markers", status: 'conflicts' },
  // git already renamed the definition (a clean hunk), so in the base read back from the markers
  // the new name is not new: the rename is not seen, and the edit of the use stays a conflict.
  'rename-vs-edit-around-the-use': { why: "git's clean hunk already renamed the definition outside the markers", status: 'conflicts' },
  'rename-vs-parameters-changed-in-the-user': { why: "git's clean hunk already renamed the definition outside the markers", status: 'conflicts' },
};
const optionsOf = (name: string): CaseOptions =>
  existsSync(join(FIXTURES, name, 'options.json')) ? (JSON.parse(readFileSync(join(FIXTURES, name, 'options.json'), 'utf8')) as CaseOptions) : {};
const bytes = (name: string, f: string): Buffer => readFileSync(join(FIXTURES, name, f));

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A scratch repository whose merge.conflictStyle is the case's style (the driver and merge-file both read it). */
function scratch(style: 'merge' | 'diff3'): string {
  const dir = initRepo(tmp('gcpatch-mf-'));
  made.push(dir);
  git(dir, ['config', 'merge.conflictStyle', style]);
  return dir;
}

describe('gcpatch merge-file: byte-identical to the driver on every fixture', () => {
  it('has the fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(40));
  let same = 0;
  for (const name of cases) {
    it(name, () => {
      const o = optionsOf(name);
      const dir = scratch(o.style ?? 'diff3');
      const size = String(o.markerSize ?? 7);
      for (const [f, to] of [
        ['Base.gc', 'O'],
        ['Left.gc', 'A'],
        ['Right.gc', 'B'],
        ['Left.gc', 'ours.gc'],
      ] as const) {
        writeFileSync(join(dir, to), bytes(name, f));
      }
      // The driver exactly as the installed line runs it (git < 2.44 passes the labels literally).
      const d = spawnSync(process.execPath, [LAUNCH, 'O', 'A', 'B', size, `${name}.gc`, 'base', 'ours', 'theirs'], { cwd: dir });
      const m = spawnSync(
        process.execPath,
        [BIN, 'merge-file', '--marker-size', size, '-L', 'ours', '-L', 'base', '-L', 'theirs', '-o', 'out.gc', 'O', 'ours.gc', 'B'],
        { cwd: dir },
      );
      const driverResult = readFileSync(join(dir, 'A'));
      const result = readFileSync(join(dir, 'out.gc'));
      expect(result.toString('latin1')).toBe(driverResult.toString('latin1'));
      expect(result.equals(bytes(name, 'Expected.gc'))).toBe(true);
      expect(d.status === 0 ? 0 : 1).toBe(d.status);
      expect(m.status).toBe(d.status === 0 ? 0 : Math.min(127, Math.max(1, countConflicts(result, Number(size)))));
      // -p writes the same bytes to stdout and leaves OURS alone.
      const p = spawnSync(process.execPath, [BIN, 'merge-file', '--marker-size', size, '-p', 'O', 'ours.gc', 'B'], { cwd: dir });
      expect(Buffer.from(p.stdout).equals(result)).toBe(true);
      expect(readFileSync(join(dir, 'ours.gc')).equals(bytes(name, 'Left.gc'))).toBe(true);
      same++;
    });
  }
  afterAll(() => console.log(`merge-file = driver on ${same}/${cases.length} fixtures`));
});

describe("gcpatch solve: re-resolves git's conflicted output of every triple the driver resolves", () => {
  const resolvable = cases.filter((name) => (optionsOf(name).exitCode ?? (hasConflictMarkers(bytes(name, 'Expected.gc')) ? 1 : 0)) === 0);
  const tally = { resolvable: resolvable.length, gitConflicted: 0, solved: 0, limits: 0 };
  for (const name of resolvable) {
    it(name, () => {
      const o = optionsOf(name);
      const dir = tmp('gcpatch-solve-');
      made.push(dir);
      writeFileSync(join(dir, 'O'), bytes(name, 'Base.gc'));
      writeFileSync(join(dir, 'A'), bytes(name, 'Left.gc'));
      writeFileSync(join(dir, 'B'), bytes(name, 'Right.gc'));
      const size = o.markerSize ?? 7;
      const g = spawnSync('git', ['merge-file', '-p', '--diff3', `--marker-size=${size}`, '-L', 'ours', '-L', 'base', '-L', 'theirs', 'A', 'O', 'B'], { cwd: dir });
      if (g.status === 0) return; // git merged it cleanly: nothing to re-solve
      expect(g.status).toBeGreaterThan(0);
      expect(g.status).toBeLessThan(128);
      tally.gitConflicted++;
      writeFileSync(join(dir, 'm.gc'), g.stdout);
      const r = solveFile('m.gc', { cwd: dir });
      const limit = MARKER_LIMITS[name];
      if (limit !== undefined) {
        tally.limits++;
        expect(r).toMatchObject({ source: 'markers', status: limit.status });
        if (limit.status === 'resolved') expect(readFileSync(join(dir, 'm.gc')).equals(bytes(name, 'Expected.gc'))).toBe(false);
        return;
      }
      expect(r).toMatchObject({ source: 'markers', status: 'resolved', conflicts: 0 });
      expect(readFileSync(join(dir, 'm.gc')).toString('latin1')).toBe(bytes(name, 'Expected.gc').toString('latin1'));
      tally.solved++;
    });
  }
  it('covers a real share of the fixtures', () => {
    // Run last: every conflicted case above was solved.
    expect(tally.solved + tally.limits).toBe(tally.gitConflicted);
    expect(tally.solved).toBeGreaterThanOrEqual(9);
  });
  afterAll(() =>
    console.log(
      `solve from markers: ${tally.resolvable} triples the driver resolves; git merge-file conflicts on ${tally.gitConflicted}; ` +
        `solve resolved ${tally.solved} exactly, ${tally.limits} are marker limits (${Object.keys(MARKER_LIMITS).join(', ')})`,
    ),
  );
});

describe('conflict markers → sides', () => {
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

  it('splits diff3 blocks, keeps line ends, reads labels and marker size', () => {
    const text = 'a\r\n<<<<<<<<< HEAD\r\nx1\r\n||||||||| merged common ancestors\r\nx0\r\n=========\r\nx2\r\n>>>>>>>>> feature\r\nz';
    const s = sidesFromMarkers(enc(text), 'f.gc')!;
    expect([dec(s.base), dec(s.ours), dec(s.theirs)]).toEqual(['a\r\nx0\r\nz', 'a\r\nx1\r\nz', 'a\r\nx2\r\nz']);
    expect(s).toMatchObject({ blocks: 1, markerSize: 9, labels: { ours: 'HEAD', base: 'merged common ancestors', theirs: 'feature' } });
    // Shorter or longer runs of the marker characters are content.
    const t = sidesFromMarkers(enc('<<<<<<<\n<<<<<<<< x\n|||||||\n=======\n=======\n>>>>>>>\n'))!;
    expect([dec(t.ours), dec(t.base), dec(t.theirs)]).toEqual(['<<<<<<<< x\n', '', '=======\n']);
    expect(sidesFromMarkers(enc('no markers\n'))).toBeUndefined();
  });

  it('refuses merge-style markers (no base) and unclosed blocks, naming file, line and the fix', () => {
    expect(() => sidesFromMarkers(enc('a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n'), 'm.gc')).toThrow(
      expect.objectContaining({ code: 'solve/no-base', location: { file: 'm.gc', line: 2 }, message: expect.stringMatching(/git checkout --conflict=diff3 -- m\.gc/) }),
    );
    expect(() => sidesFromMarkers(enc('<<<<<<< ours\nb\n||||||| base\n'), 'm.gc')).toThrow(expect.objectContaining({ code: 'solve/bad-markers' }));
  });

  it('countConflicts counts opening markers of the exact size', () => {
    expect(countConflicts(enc('<<<<<<< a\nx\n<<<<<<<<\n<<<<<<<\n'), 7)).toBe(2);
    expect(countConflicts(enc('<<<<<<<<< a\n'), 7)).toBe(0);
  });
});

describe('merge-file: git merge-file conventions', () => {
  it('errors exit 255, with --json too; usage errors name the fix', () => {
    const dir = tmp('gcpatch-mf-err-');
    made.push(dir);
    writeFileSync(join(dir, 'a.gc'), '(def a 1)\n');
    let r = spawnSync(process.execPath, [BIN, 'merge-file', '--json', 'nope.gc', 'a.gc', 'a.gc'], { cwd: dir, encoding: 'utf8' });
    expect(r.status).toBe(255);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'merge-file/unreadable', location: { file: 'nope.gc' } } });
    expect(r.stderr).not.toMatch(/^\s+at /m);
    r = spawnSync(process.execPath, [BIN, 'merge-file', '-p', '-o', 'x', 'a.gc', 'a.gc', 'a.gc'], { cwd: dir, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([255, 'merge-file/usage: use either -p or -o, not both\n']);
    r = spawnSync(process.execPath, [BIN, 'merge-file', '--help'], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/number of conflicts \(0 clean, at most 127\); 255 on errors/);
  });

  it('caps the status at 127 conflicts', () => {
    const dir = tmp('gcpatch-mf-many-');
    made.push(dir);
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
