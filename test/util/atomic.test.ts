// writeFileAtomic replaces regular files only: a symlink, FIFO or directory at the target is refused, untouched.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/util/atomic.js';
import { isGcError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/cli.js';

const dir = tempDir('gcpatch-atomic-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refused(path: string): string {
  try {
    writeFileAtomic(path, 'new\n');
  } catch (error) {
    if (isGcError(error)) return `${error.code} ${error.exitCode}`;
    throw error;
  }
  return 'written';
}

describe('writeFileAtomic', () => {
  it('replaces a regular file and creates a new one', () => {
    const f = join(dir, 'plain.txt');
    writeFileSync(f, 'old\n');
    writeFileAtomic(f, 'new\n');
    expect(readFileSync(f, 'utf8')).toBe('new\n');
    writeFileAtomic(join(dir, 'fresh.txt'), 'x');
    expect(readFileSync(join(dir, 'fresh.txt'), 'utf8')).toBe('x');
  });

  it('refuses a symlink, a FIFO and a directory, and leaves them as they were', () => {
    const real = join(dir, 'real.txt');
    writeFileSync(real, 'keep\n');
    const link = join(dir, 'link');
    symlinkSync(real, link);
    expect(refused(link)).toBe('io/not-a-regular-file 70');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('keep\n');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(refused(fifo)).toBe('io/not-a-regular-file 70');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(refused(sub)).toBe('io/not-a-regular-file 70');
    expect(lstatSync(sub).isDirectory()).toBe(true);
  });
});
