/**
 * `gcpatch merge-file` and `gcpatch solve` in-process on every triple of fixtures/merge: the library
 * calls the CLI makes (`mergeLooseFiles`, `solveFile`) against the driver run as git runs it
 * (`mergeInvocation`, in the repository's folder); solve against git's conflicted output (diff3
 * markers) of every triple the driver resolves. The built CLI and bundled driver are run on a few of
 * these triples by test/e2e/merge-file-cli.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeInvocation } from '../../src/driver-service/run.js';
import { parseDriverArgs } from '../../src/textmerge/driver.js';
import { hasConflictMarkers } from '../../src/textmerge/line-based.js';
import { countConflicts, mergeLooseFiles, sidesFromMarkers, solveFile } from '../../src/textmerge/solve.js';
import { ROOT } from '../helpers/cli.js';
import { tempRepo, type TempRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/cli.js';

const FIXTURES = join(ROOT, 'fixtures/merge');
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

describe('merge-file (mergeLooseFiles): byte-identical to the driver on every fixture', () => {
  // One scratch repository per conflict style (the driver and merge-file both read merge.conflictStyle);
  // each case merges in its own folder inside it.
  const repos = new Map<'merge' | 'diff3', TempRepo>();
  beforeAll(() => {
    for (const style of ['merge', 'diff3'] as const) {
      const repo = tempRepo();
      made.push(repo.dir);
      repo.git('config', 'merge.conflictStyle', style);
      repos.set(style, repo);
    }
  });

  it('has the fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const name of cases) {
    it(name, () => {
      const o = optionsOf(name);
      const dir = join(repos.get(o.style ?? 'diff3')!.dir, name);
      mkdirSync(dir);
      const size = o.markerSize ?? 7;
      for (const [f, to] of [
        ['Base.gc', 'O'],
        ['Left.gc', 'A'],
        ['Right.gc', 'B'],
        ['Left.gc', 'ours.gc'],
      ] as const) {
        writeFileSync(join(dir, to), bytes(name, f));
      }
      // The driver exactly as the installed line runs it, in the repository (git < 2.44 passes the labels literally).
      const previous = process.cwd();
      let driverStatus: 0 | 1;
      try {
        process.chdir(dir);
        driverStatus = mergeInvocation(parseDriverArgs(['O', 'A', 'B', String(size), `${name}.gc`, 'base', 'ours', 'theirs']), process.env, () => {});
      } finally {
        process.chdir(previous);
      }
      // What `gcpatch merge-file --marker-size N -L ours -L base -L theirs O ours.gc B` computes there.
      const r = mergeLooseFiles(
        { base: join(dir, 'O'), ours: join(dir, 'ours.gc'), theirs: join(dir, 'B') },
        { markerSize: size, labels: { ours: 'ours', base: 'base', theirs: 'theirs' }, cwd: dir },
      );
      const driverResult = readFileSync(join(dir, 'A'));
      expect(Buffer.from(r.result).toString('latin1')).toBe(driverResult.toString('latin1'));
      expect(driverResult.equals(bytes(name, 'Expected.gc'))).toBe(true);
      expect(r.conflicts).toBe(driverStatus === 0 ? 0 : Math.max(1, countConflicts(r.result, size)));
      // merge-file computes without touching its inputs (the CLI writes -o OUT or stdout).
      expect(readFileSync(join(dir, 'ours.gc')).equals(bytes(name, 'Left.gc'))).toBe(true);
    });
  }
});

/** `git merge-file -p --diff3` of a fixture triple (ours = Left, theirs = Right): its status and output. */
function gitMergeFile(name: string): { status: number; stdout: Buffer } {
  const size = optionsOf(name).markerSize ?? 7;
  const dir = join(FIXTURES, name);
  const g = spawnSync(
    'git',
    ['merge-file', '-p', '--diff3', `--marker-size=${size}`, '-L', 'ours', '-L', 'base', '-L', 'theirs', 'Left.gc', 'Base.gc', 'Right.gc'],
    {
      cwd: dir,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    },
  );
  return { status: g.status ?? -1, stdout: g.stdout };
}

describe("gcpatch solve: re-resolves git's conflicted output of every triple the driver resolves", () => {
  const resolvable = cases.filter((name) => (optionsOf(name).exitCode ?? (hasConflictMarkers(bytes(name, 'Expected.gc')) ? 1 : 0)) === 0);
  // git's verdict on each triple, known before any test runs (each test asserts its own case).
  const merged = new Map(resolvable.map((name) => [name, gitMergeFile(name)]));
  const conflicted = resolvable.filter((name) => merged.get(name)!.status !== 0);

  it('covers a real share of the fixtures, and every marker limit is a triple git conflicts on', () => {
    expect(conflicted.length - Object.keys(MARKER_LIMITS).length).toBeGreaterThanOrEqual(9);
    for (const name of Object.keys(MARKER_LIMITS)) expect(conflicted, name).toContain(name);
  });

  /** A fresh directory with git's output of triple `name` as m.gc. */
  const gitOutputIn = (name: string): string => {
    const dir = tempDir('gcpatch-solve-');
    made.push(dir);
    writeFileSync(join(dir, 'm.gc'), merged.get(name)!.stdout);
    return dir;
  };

  // Nothing to solve: a file without markers is left as it is; markers that were already in
  // the sides (no base section) are refused, the file untouched.
  const clean = resolvable.filter((name) => merged.get(name)!.status === 0);
  for (const name of clean.filter((n) => !hasConflictMarkers(merged.get(n)!.stdout))) {
    it(`${name} (git merges it cleanly: nothing to solve)`, () => {
      const dir = gitOutputIn(name);
      expect(solveFile('m.gc', { cwd: dir })).toMatchObject({ source: 'none', status: 'unchanged', conflicts: 0 });
      expect(readFileSync(join(dir, 'm.gc')).equals(merged.get(name)!.stdout)).toBe(true);
    });
  }
  for (const name of clean.filter((n) => hasConflictMarkers(merged.get(n)!.stdout))) {
    it(`${name} (git merges it cleanly: nothing to solve)`, () => {
      const dir = gitOutputIn(name);
      expect(() => solveFile('m.gc', { cwd: dir })).toThrow(expect.objectContaining({ code: 'solve/no-base' }));
      expect(readFileSync(join(dir, 'm.gc')).equals(merged.get(name)!.stdout)).toBe(true);
    });
  }

  for (const name of conflicted) {
    const g = merged.get(name)!;
    const limit = MARKER_LIMITS[name];
    if (limit === undefined) {
      it(`${name} (solved exactly)`, () => {
        expect(g.status).toBeGreaterThan(0);
        expect(g.status).toBeLessThan(128);
        const dir = gitOutputIn(name);
        expect(solveFile('m.gc', { cwd: dir })).toMatchObject({ source: 'markers', status: 'resolved', conflicts: 0 });
        expect(readFileSync(join(dir, 'm.gc')).toString('latin1')).toBe(bytes(name, 'Expected.gc').toString('latin1'));
      });
    } else {
      it(`${name} (marker limit: ${limit.why})`, () => {
        expect(g.status).toBeGreaterThan(0);
        expect(g.status).toBeLessThan(128);
        const dir = gitOutputIn(name);
        expect(solveFile('m.gc', { cwd: dir })).toMatchObject({ source: 'markers', status: limit.status });
        // Resolved, but not as the driver resolves it (else the limit is gone: drop it from MARKER_LIMITS).
        const exact = readFileSync(join(dir, 'm.gc')).equals(bytes(name, 'Expected.gc'));
        expect(limit.status === 'resolved' && exact).toBe(false);
      });
    }
  }
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
      expect.objectContaining({
        code: 'solve/no-base',
        location: { file: 'm.gc', line: 2 },
        message: expect.stringMatching(/git checkout --conflict=diff3 -- m\.gc/),
      }),
    );
    expect(() => sidesFromMarkers(enc('<<<<<<< ours\nb\n||||||| base\n'), 'm.gc')).toThrow(expect.objectContaining({ code: 'solve/bad-markers' }));
  });

  it('countConflicts counts opening markers of the exact size', () => {
    expect(countConflicts(enc('<<<<<<< a\nx\n<<<<<<<<\n<<<<<<<\n'), 7)).toBe(2);
    expect(countConflicts(enc('<<<<<<<<< a\n'), 7)).toBe(0);
  });
});
