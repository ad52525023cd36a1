/** The durable-write helpers of the transaction core: batched writes and fsyncs, backups, the fsync helper thread. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeAllIfPresent, SyncBatch, syncDirectories } from '../../src/transaction/durable.js';
import { fsyncConcurrently } from '../../src/transaction/parallel-fsync.js';
import { LINK_UNSUPPORTED_ERRNOS, linkUnsupported } from '../../src/util/atomic.js';
import { errorOf } from '../patch/helpers.js';

describe('SyncBatch', () => {
  it('writes many files with their modes, syncs them together (helper thread) and each directory once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcpatch-durable-'));
    const batch = new SyncBatch(40);
    try {
      for (let i = 0; i < 40; i++) {
        batch.write(join(dir, `f${i}`), Buffer.from(`file ${i}\n`), i % 2 === 0 ? 0o640 : undefined);
        batch.directory(dir);
      }
      batch.flush();
    } finally {
      batch.close();
    }
    for (let i = 0; i < 40; i++) expect(readFileSync(join(dir, `f${i}`), 'utf8')).toBe(`file ${i}\n`);
    expect(statSync(join(dir, 'f0')).mode & 0o777).toBe(0o640);
    syncDirectories([dir, dir]);
  });

  it('refuses to overwrite (io/eexist) and leaves the existing bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcpatch-durable-'));
    writeFileSync(join(dir, 'a'), 'old');
    const batch = new SyncBatch();
    expect(errorOf(() => batch.write(join(dir, 'a'), Buffer.from('new'), undefined)).code).toBe('io/eexist');
    batch.close();
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('old');
  });

  it('a backup is a hard link to the old inode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcpatch-durable-'));
    writeFileSync(join(dir, 'a'), 'old');
    const batch = new SyncBatch();
    batch.backup(join(dir, 'a'), join(dir, 'a.backup'), 0o644);
    batch.flush();
    expect(statSync(join(dir, 'a.backup')).ino).toBe(statSync(join(dir, 'a')).ino);
  });
});

describe('removeAllIfPresent', () => {
  it('deletes many files at once (helper thread), missing ones are fine; a directory is an io error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcpatch-durable-'));
    const paths = Array.from({ length: 30 }, (_, i) => join(dir, `f${i}`));
    paths.slice(0, 20).forEach((p) => writeFileSync(p, 'x'));
    removeAllIfPresent(paths);
    expect(readdirSync(dir)).toEqual([]);
    mkdirSync(join(dir, 'sub'));
    const error = errorOf(() => removeAllIfPresent([...paths, join(dir, 'sub')]));
    expect(error.code).toMatch(/^io\//);
    expect(error.location.file).toBe(join(dir, 'sub'));
    expect(existsSync(join(dir, 'sub'))).toBe(true);
  });
});

describe('the fsync helper thread and the link fallback list', () => {
  it('reports a descriptor whose fsync fails, by index', () => {
    const failures = fsyncConcurrently([...Array.from({ length: 9 }, () => 2 ** 30)]);
    expect(failures).toBeDefined();
    expect(failures!.map((f) => [f.index, f.error.code])).toEqual(Array.from({ length: 9 }, (_, i) => [i, 'EBADF']));
  });

  it('one errno list for "cannot hard-link here"', () => {
    expect([...LINK_UNSUPPORTED_ERRNOS].sort()).toEqual(['EMLINK', 'EOPNOTSUPP', 'EPERM', 'ENOTSUP', 'EXDEV'].sort());
    expect(linkUnsupported(Object.assign(new Error('x'), { code: 'EXDEV' }))).toBe(true);
    expect(linkUnsupported(Object.assign(new Error('x'), { code: 'EEXIST' }))).toBe(false);
  });
});
