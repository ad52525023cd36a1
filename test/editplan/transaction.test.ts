import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedCrash, applyPlanToRoot, decodeEditPlan, journalPath, recover, sha256Hex, type EditPlan } from '../../src/editplan/index.js';
import { edit, expectFailure, file, plan, scratchDirs } from './helpers.js';

const scratch = scratchDirs();
const tempDir = () => scratch('gcpatch-editplan-');

/** The five files of the commit tests: path → [old bytes, new bytes]. */
const FIVE: Array<[string, string, string]> = [
  ['a.ts', 'let oldName = 1;\n', 'let newName = 1;\n'],
  ['src/b.ts', 'oldName();\r\noldName();\r\n', 'newName();\r\nnewName();\r\n'],
  ['src/deep/c.ts', '// 😀 oldName\n', '// 😀 newName\n'],
  ['Zeta.md', 'oldName', 'newName'],
  ['src/é.ts', 'x = oldName', 'x = newName'],
];

/** Writes the five old files under a fresh root and returns the root and the plan over them. */
function fiveFileRoot(): { root: string; plan: EditPlan } {
  const root = tempDir();
  const files = FIVE.map(([path, old]) => {
    const absolute = join(root, ...path.split('/'));
    mkdirSync(join(absolute, '..'), { recursive: true });
    writeFileSync(absolute, old);
    const edits = [];
    const lines = old.split('\n');
    for (let line = 0; line < lines.length; line++) {
      const char = lines[line]!.indexOf('oldName');
      if (char >= 0) edits.push(edit(line + 1, char, line + 1, char + 7, 'oldName', 'newName'));
    }
    return file(path, edits, sha256Hex(Buffer.from(old)));
  });
  // Plan order differs from commit (code-point) order on purpose.
  return { root, plan: plan(files) };
}

/** 'old' | 'new' | 'mixed' for the five files. */
function state(root: string): string {
  const states = FIVE.map(([path, old, next]) => {
    const bytes = readFileSync(join(root, ...path.split('/')), 'utf8');
    return bytes === old ? 'old' : bytes === next ? 'new' : `other:${path}`;
  });
  return states.every((s) => s === states[0]) ? states[0]! : `mixed(${states.join(',')})`;
}

/** Every file under root whose name marks it as a transaction temp file, plus the journal. */
function leftovers(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/gcpatch-(stage|backup)-|editplan-journal/.test(entry.name)) found.push(full.slice(root.length + 1));
    }
  };
  walk(root);
  return found;
}

/** Records the step names of one successful five-file transaction. */
function recordSteps(): string[] {
  const { root, plan: p } = fiveFileRoot();
  const steps: string[] = [];
  applyPlanToRoot(p, root, { faultAt: (step) => steps.push(step) });
  expect(state(root)).toBe('new');
  return steps;
}

const STEPS = recordSteps();
const AFTER_COMMIT_POINT = new Set(STEPS.slice(STEPS.indexOf('journal:committed') + 1));

describe('transaction: five-file commit', () => {
  it('records every step once, in order', () => {
    expect(STEPS).toEqual([
      'prepare',
      'journal:create',
      ...[0, 1, 2, 3, 4].flatMap((i) => [`stage:${i}`, `backup:${i}`]),
      'recheck',
      'journal:committing',
      ...[0, 1, 2, 3, 4].map((i) => `commit:${i}`),
      'journal:committed',
      ...[0, 1, 2, 3, 4].map((i) => `cleanup:${i}`),
      'journal:remove',
    ]);
  });

  it('applies all five files and leaves no temp files or journal', () => {
    const { root, plan: p } = fiveFileRoot();
    const result = applyPlanToRoot(p, root);
    expect(state(root)).toBe('new');
    expect(leftovers(root)).toEqual([]);
    expect(existsSync(join(root, '.gcpatch'))).toBe(false);
    expect(result.cleanupPending).toBe(false);
    expect(result.files.map((f) => f.path)).toEqual(FIVE.map(([path]) => path));
    expect(result.files[0]).toMatchObject({
      fileIndex: 0,
      beforeSha256: sha256Hex(Buffer.from(FIVE[0]![1])),
      afterSha256: sha256Hex(Buffer.from(FIVE[0]![2])),
      bytesBefore: 17,
      bytesAfter: 17,
      editsApplied: 1,
      changed: true,
    });
  });

  it('dry run checks everything and writes nothing (not even the control directory)', () => {
    const { root, plan: p } = fiveFileRoot();
    const result = applyPlanToRoot(p, root, { dryRun: true });
    expect(result.dryRun).toBe(true);
    expect(result.files[1]!.outputText).toBe(FIVE[1]![2]);
    expect(state(root)).toBe('old');
    expect(existsSync(join(root, '.gcpatch'))).toBe(false);
  });

  for (const step of STEPS) {
    it(`crash at ${step}, then recover → all ${AFTER_COMMIT_POINT.has(step) ? 'new' : 'old'}`, () => {
      const { root, plan: p } = fiveFileRoot();
      expect(() =>
        applyPlanToRoot(p, root, {
          faultAt: (s) => {
            if (s === step) throw new SimulatedCrash(s);
          },
        }),
      ).toThrow(SimulatedCrash);
      const recovery = recover(root);
      const expected = AFTER_COMMIT_POINT.has(step) ? 'new' : 'old';
      expect(state(root)).toBe(expected);
      expect(leftovers(root)).toEqual([]);
      const hadJournal = step !== 'prepare' && step !== 'journal:create';
      expect(recovery.action).toBe(!hadJournal ? 'none' : expected === 'new' ? 'completed' : 'rolled-back');
      // A second recovery finds nothing to do.
      expect(recover(root).action).toBe('none');
    });
  }

  // A crash in the middle of the renames really leaves a mixed tree behind.
  for (const step of STEPS.filter((s) => /^commit:[1-4]$/.test(s))) {
    it(`crash at ${step} leaves a mixed tree until recovery`, () => {
      const { root, plan: p } = fiveFileRoot();
      crashAt(p, root, step);
      expect(state(root)).toMatch(/^mixed/);
    });
  }

  /** A fault that throws an ordinary error at `step`. */
  const failingAt = (step: string) => (s: string) => {
    if (s === step) throw new Error(`disk full at ${s}`);
  };
  for (const step of STEPS.filter((s) => !AFTER_COMMIT_POINT.has(s))) {
    it(`I/O-like failure at ${step} is handled in-process`, () => {
      const { root, plan: p } = fiveFileRoot();
      expect(() => applyPlanToRoot(p, root, { faultAt: failingAt(step) })).toThrow(`disk full at ${step}`);
      expect(state(root)).toBe('old');
      expect(recover(root).action).toBe('none');
      expect(leftovers(root)).toEqual([]);
    });
  }
  for (const step of STEPS.filter((s) => AFTER_COMMIT_POINT.has(s))) {
    it(`I/O-like failure at ${step} is handled in-process`, () => {
      const { root, plan: p } = fiveFileRoot();
      const result = applyPlanToRoot(p, root, { faultAt: failingAt(step) });
      expect(result.cleanupPending).toBe(true);
      expect(state(root)).toBe('new');
      expect(recover(root).action).toBe('completed');
      expect(leftovers(root)).toEqual([]);
    });
  }

  for (const k of [1, 3, 4]) {
    for (let j = 0; j < k; j++) {
      // What the apply throws: the crash itself, or RECOVERY_REQUIRED after a failed restore.
      for (const [kind, thrown] of [
        ['crash', expect.any(SimulatedCrash)],
        ['error', expect.objectContaining({ code: 'RECOVERY_REQUIRED' })],
      ] as const) {
        it(`failure at commit:${k}, then ${kind} while rolling back rollback:${j} → recover → all old`, () => {
          const { root, plan: p } = fiveFileRoot();
          const error = expectFailureOrCrash(() =>
            applyPlanToRoot(p, root, {
              faultAt: (s) => {
                if (s === `commit:${k}`) throw new Error('rename failed');
                if (s === `rollback:${j}`) throw kind === 'crash' ? new SimulatedCrash(s) : new Error('restore failed');
              },
            }),
          );
          expect(error).toEqual(thrown);
          expect(existsSync(journalPath(root))).toBe(true);
          expect(recover(root).action).toBe('rolled-back');
          expect(state(root)).toBe('old');
          expect(leftovers(root)).toEqual([]);
        });
      }
    }
  }

  it('a crash during recovery can itself be recovered', () => {
    const recoverySteps: string[] = [];
    {
      const { root, plan: p } = fiveFileRoot();
      crashAt(p, root, 'journal:committed');
      recover(root, { faultAt: (s) => recoverySteps.push(s) });
    }
    expect(recoverySteps).toEqual([
      'recover:4',
      'recover:3',
      'recover:2',
      'recover:1',
      'recover:0',
      'recover:cleanup:0',
      'recover:cleanup:1',
      'recover:cleanup:2',
      'recover:cleanup:3',
      'recover:cleanup:4',
      'recover:journal:remove',
    ]);
    for (const step of recoverySteps) {
      const { root, plan: p } = fiveFileRoot();
      crashAt(p, root, 'journal:committed');
      expect(() =>
        recover(root, {
          faultAt: (s) => {
            if (s === step) throw new SimulatedCrash(s);
          },
        }),
      ).toThrow(SimulatedCrash);
      expect(recover(root).action).toBe('rolled-back');
      expect(state(root)).toBe('old');
      expect(leftovers(root)).toEqual([]);
    }
  });

  it('recovery refuses to touch a target matching neither hash (RECOVERY_CONFLICT) and changes nothing', () => {
    const { root, plan: p } = fiveFileRoot();
    crashAt(p, root, 'commit:3'); // a.ts, Zeta.md, src/b.ts committed (code-point order: Zeta.md < a.ts < src/…)
    writeFileSync(join(root, 'a.ts'), 'edited by someone else');
    const before = snapshot(root);
    const error = expectFailure(() => recover(root), { code: 'RECOVERY_CONFLICT' });
    expect(error.exitCode).toBe(50);
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(journalPath(root))).toBe(true);
  });

  it('a tampered journal is JOURNAL_INVALID', () => {
    const { root, plan: p } = fiveFileRoot();
    crashAt(p, root, 'commit:2');
    const journal = readFileSync(journalPath(root), 'utf8');
    writeFileSync(journalPath(root), journal.replace('"committing"', '"committed"'));
    expectFailure(() => recover(root), { code: 'JOURNAL_INVALID' });
    writeFileSync(journalPath(root), '{not json');
    expectFailure(() => recover(root), { code: 'JOURNAL_INVALID' });
  });

  it('an existing journal blocks apply and dry run with RECOVERY_REQUIRED (exit 70)', () => {
    const { root, plan: p } = fiveFileRoot();
    crashAt(p, root, 'stage:2');
    const error = expectFailure(() => applyPlanToRoot(p, root), { code: 'RECOVERY_REQUIRED' });
    expect(error.exitCode).toBe(70);
    expectFailure(() => applyPlanToRoot(p, root, { dryRun: true }), { code: 'RECOVERY_REQUIRED' });
    expect(recover(root).action).toBe('rolled-back');
    applyPlanToRoot(p, root);
    expect(state(root)).toBe('new');
  });
});

function crashAt(p: EditPlan, root: string, step: string): void {
  expect(() =>
    applyPlanToRoot(p, root, {
      faultAt: (s) => {
        if (s === step) throw new SimulatedCrash(s);
      },
    }),
  ).toThrow(SimulatedCrash);
}

function expectFailureOrCrash(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** path → bytes of every file under root. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[full.slice(root.length + 1)] = readFileSync(full, 'latin1');
    }
  };
  walk(root);
  return out;
}

describe('transaction: verification before anything is written', () => {
  it('a file changed after planning aborts with SOURCE_HASH_MISMATCH (exit 50) and nothing written', () => {
    const { root, plan: p } = fiveFileRoot();
    writeFileSync(join(root, 'src', 'deep', 'c.ts'), '// changed oldName\n');
    const before = snapshot(root);
    const error = expectFailure(() => applyPlanToRoot(p, root), { code: 'SOURCE_HASH_MISMATCH', fileIndex: 2 });
    expect(error.exitCode).toBe(50);
    expect(error.details).toEqual({ expected: p.files[2]!.sha256, actual: sha256Hex(Buffer.from('// changed oldName\n')) });
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, '.gcpatch'))).toBe(false);
  });

  it('a file changed while staging is caught by the re-check; nothing is written', () => {
    const { root, plan: p } = fiveFileRoot();
    expectFailure(
      () =>
        applyPlanToRoot(p, root, {
          faultAt: (s) => {
            if (s === 'recheck') writeFileSync(join(root, 'Zeta.md'), 'concurrent');
          },
        }),
      { code: 'SOURCE_HASH_MISMATCH', fileIndex: 3 },
    );
    expect(readFileSync(join(root, 'Zeta.md'), 'utf8')).toBe('concurrent');
    expect(readFileSync(join(root, 'a.ts'), 'utf8')).toBe(FIVE[0]![1]);
    expect(leftovers(root)).toEqual([]);
  });

  it('a wrong before text is BEFORE_MISMATCH with fileIndex and editIndex (exit 50), nothing written', () => {
    const { root, plan: p } = fiveFileRoot();
    p.files[1]!.edits[1]!.before = 'oldNamf';
    const error = expectFailure(() => applyPlanToRoot(p, root), { code: 'BEFORE_MISMATCH', fileIndex: 1, editIndex: 1 });
    expect(error.exitCode).toBe(50);
    expect(error.location.file).toBe('src/b.ts');
    expect(state(root)).toBe('old');
    expect(leftovers(root)).toEqual([]);
  });

  it('plan validation runs first (INVALID_PATH with fileIndex)', () => {
    const root = tempDir();
    expectFailure(() => applyPlanToRoot(plan([file('a.ts'), file('con.txt')]), root), { code: 'INVALID_PATH', fileIndex: 1 });
  });

  it('paths inside the .gcpatch control directory are rejected (INVALID_PATH)', () => {
    const root = tempDir();
    expectFailure(() => applyPlanToRoot(plan([file('.GCPATCH/editplan-journal.json')]), root), { code: 'INVALID_PATH', fileIndex: 0 });
  });

  it('missing file and missing directory are SOURCE_MISSING (exit 50)', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.ts'), 'a');
    const error = expectFailure(() => applyPlanToRoot(plan([file('a.ts', undefined, sha256Hex(Buffer.from('a'))), file('nope.ts')]), root), {
      code: 'SOURCE_MISSING',
      fileIndex: 1,
    });
    expect(error.exitCode).toBe(50);
    expectFailure(() => applyPlanToRoot(plan([file('no/dir.ts')]), root), { code: 'SOURCE_MISSING', fileIndex: 0 });
    expectFailure(() => applyPlanToRoot(plan([file('a.ts/x.ts')]), root), { code: 'SOURCE_MISSING', fileIndex: 0 });
  });

  it('a directory target is TARGET_NOT_REGULAR', () => {
    const root = tempDir();
    mkdirSync(join(root, 'dir.ts'));
    expectFailure(() => applyPlanToRoot(plan([file('dir.ts')]), root), { code: 'TARGET_NOT_REGULAR', fileIndex: 0 });
  });

  it('a file that is not UTF-8 is SOURCE_NOT_UTF8', () => {
    const root = tempDir();
    const bytes = Buffer.from([0x61, 0xff, 0x62]);
    writeFileSync(join(root, 'bin.dat'), bytes);
    expectFailure(() => applyPlanToRoot(plan([file('bin.dat', undefined, sha256Hex(bytes))]), root), {
      code: 'SOURCE_NOT_UTF8',
      fileIndex: 0,
    });
  });

  it('the output validator sees each file and can reject it (VALIDATION_REJECTED with fileIndex)', () => {
    const { root, plan: p } = fiveFileRoot();
    const seen: string[] = [];
    expectFailure(() => applyPlanToRoot(p, root, { validator: (_out, f) => (seen.push(f.path), f.fileIndex !== 3) }), {
      code: 'VALIDATION_REJECTED',
      fileIndex: 3,
    });
    expect(seen).toEqual(['a.ts', 'src/b.ts', 'src/deep/c.ts', 'Zeta.md']);
    expect(state(root)).toBe('old');
  });

  it('keeps the file mode and skips files whose output equals their source', () => {
    const root = tempDir();
    writeFileSync(join(root, 'run.sh'), 'echo old\n');
    chmodSync(join(root, 'run.sh'), 0o755);
    writeFileSync(join(root, 'same.txt'), 'ab');
    const inode = statSync(join(root, 'same.txt')).ino;
    const result = applyPlanToRoot(
      plan([
        file('run.sh', [edit(1, 5, 1, 8, 'old', 'new')], sha256Hex(Buffer.from('echo old\n'))),
        file('same.txt', [edit(1, 0, 1, 1, 'a', ''), edit(1, 1, 1, 1, '', 'a')], sha256Hex(Buffer.from('ab'))),
      ]),
      root,
    );
    expect(readFileSync(join(root, 'run.sh'), 'utf8')).toBe('echo new\n');
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(result.files.map((f) => f.changed)).toEqual([true, false]);
    expect(statSync(join(root, 'same.txt')).ino).toBe(inode);
  });

  it('applies the rename-user fixture to a copy of its tree', () => {
    const root = tempDir();
    const fixture = new URL('../../fixtures/editplan/rename-user/', import.meta.url);
    cpSync(new URL('tree', fixture), root, { recursive: true });
    applyPlanToRoot(decodeEditPlan(readFileSync(new URL('plan.json', fixture), 'utf8')), root);
    for (const name of ['main.ts', 'user.ts']) {
      expect(readFileSync(join(root, 'src', name))).toEqual(readFileSync(new URL(`expected/src/${name}`, fixture)));
    }
  });
});

/** Applies to `root` a plan turning the one-byte file `path` (`x`) into `y`. */
function xToY(root: string, path: string): unknown {
  return applyPlanToRoot(plan([file(path, [edit(1, 0, 1, 1, 'x', 'y')], sha256Hex(Buffer.from('x')))]), root);
}

/** Makes the directory `dir` holding the one-byte file `name` (`x`). */
function dirWithX(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), 'x');
}

describe('transaction: links and aliases', () => {
  it('a parent symlink leading outside the root is PATH_ESCAPES_ROOT; the outside file is untouched', () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'a.ts'), 'secret');
    symlinkSync(outside, join(root, 'link'));
    expectFailure(() => applyPlanToRoot(plan([file('link/a.ts', [edit(1, 0, 1, 6, 'secret', 'x')], sha256Hex(Buffer.from('secret')))]), root), {
      code: 'PATH_ESCAPES_ROOT',
      fileIndex: 0,
    });
    expect(readFileSync(join(outside, 'a.ts'), 'utf8')).toBe('secret');
  });

  it('a relative ../ symlink escape is rejected too', () => {
    const parent = tempDir();
    const root = join(parent, 'repo');
    mkdirSync(root);
    dirWithX(join(parent, 'other'), 'x.ts');
    symlinkSync('../other', join(root, 'up'));
    expectFailure(() => xToY(root, 'up/x.ts'), { code: 'PATH_ESCAPES_ROOT', fileIndex: 0 });
  });

  it('a symlinked directory resolving into .git is PATH_ESCAPES_ROOT', () => {
    const root = tempDir();
    dirWithX(join(root, '.git'), 'config');
    symlinkSync('.git', join(root, 'cfg'));
    expectFailure(() => xToY(root, 'cfg/config'), { code: 'PATH_ESCAPES_ROOT', fileIndex: 0 });
  });

  it('a symlinked target file is TARGET_NOT_REGULAR even inside the root', () => {
    const root = tempDir();
    writeFileSync(join(root, 'real.ts'), 'x');
    symlinkSync('real.ts', join(root, 'alias.ts'));
    expectFailure(() => xToY(root, 'alias.ts'), { code: 'TARGET_NOT_REGULAR', fileIndex: 0 });
    expect(readFileSync(join(root, 'real.ts'), 'utf8')).toBe('x');
  });

  it('a symlinked directory inside the root is followed', () => {
    const root = tempDir();
    dirWithX(join(root, 'src'), 'a.ts');
    symlinkSync('src', join(root, 'lib'));
    xToY(root, 'lib/a.ts');
    expect(readFileSync(join(root, 'src', 'a.ts'), 'utf8')).toBe('y');
  });

  it('two plan paths resolving to one file (directory symlink) are PATH_ALIAS on the later file', () => {
    const root = tempDir();
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ts'), 'xy');
    symlinkSync('src', join(root, 'lib'));
    const hash = sha256Hex(Buffer.from('xy'));
    const error = expectFailure(
      () => applyPlanToRoot(plan([file('src/a.ts', [edit(1, 0, 1, 1, 'x', 'X')], hash), file('lib/a.ts', [edit(1, 1, 1, 2, 'y', 'Y')], hash)]), root),
      { code: 'PATH_ALIAS', fileIndex: 1 },
    );
    expect(error.details).toEqual({ relatedFileIndex: 0 });
    expect(readFileSync(join(root, 'src', 'a.ts'), 'utf8')).toBe('xy');
  });

  it('two plan paths naming one inode (hard link) are PATH_ALIAS', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.ts'), 'xy');
    linkSync(join(root, 'a.ts'), join(root, 'b.ts'));
    const hash = sha256Hex(Buffer.from('xy'));
    expectFailure(() => applyPlanToRoot(plan([file('a.ts', [edit(1, 0, 1, 1, 'x', 'X')], hash), file('b.ts', [edit(1, 1, 1, 2, 'y', 'Y')], hash)]), root), {
      code: 'PATH_ALIAS',
      fileIndex: 1,
    });
  });
});
