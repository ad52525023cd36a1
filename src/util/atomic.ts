/** Atomic file writes (temp file in the same directory, fsync, rename, fsync the directory) and atomic exclusive creation (temp, fsync, hard link). */
import { closeSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GcError, ioError } from './errors.js';

let counter = 0;

/**
 * The errno codes meaning "this filesystem cannot hard-link here" (FAT and exFAT, some network and
 * overlay mounts, a file at its maximum link count). Code that hard-links for atomicity or for a
 * backup falls back to a rename or a copy on these and fails on any other.
 */
export const LINK_UNSUPPORTED_ERRNOS: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK']);

/** True when `error` (from `link`) is one of {@link LINK_UNSUPPORTED_ERRNOS}. */
export function linkUnsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && LINK_UNSUPPORTED_ERRNOS.has(code);
}

/**
 * Replaces `path` with `bytes` atomically: readers see either the old or the new content, never a
 * prefix. The temp file `.<name>.gcpatch-tmp-<pid>-<n>` sits next to the target.
 * @param path target file path.
 * @param bytes new content (a string is written as UTF-8).
 * @throws GcError `io/not-a-regular-file` (exit 70, like the rest of `io/`) when `path` exists and is not a regular file (a
 *   symlink, FIFO, device or directory is never replaced); `io/<errno>` (exit 70) when any step
 *   fails; the temp file is removed.
 */
export function writeFileAtomic(path: string, bytes: Uint8Array | string): void {
  let existing;
  try {
    existing = lstatSync(path);
  } catch {
    existing = undefined;
  }
  if (existing !== undefined && !existing.isFile()) {
    const what = existing.isSymbolicLink() ? 'a symlink' : existing.isDirectory() ? 'a directory' : existing.isFIFO() ? 'a FIFO' : 'a device or special file';
    throw new GcError('io/not-a-regular-file', `${path} is ${what}; gcpatch replaces only regular files (choose another path, or remove it first)`, {
      location: { file: path },
    });
  }
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.gcpatch-tmp-${process.pid}-${counter++}`);
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  try {
    writeNewFileSynced(tmp, data, 0o644);
    renameSync(tmp, path);
  } catch (error) {
    removeQuietly(tmp);
    throw ioError(error, path, 'write');
  }
  fsyncDirectory(dir);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* not created, or gone already */
  }
}

/**
 * Writes `data` into the new file `temp` (created exclusively, with `mode`) and fsyncs it. On any
 * failure the descriptor is closed, `temp` removed and the `node:fs` error rethrown as it is.
 */
export function writeNewFileSynced(temp: string, data: Uint8Array, mode: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    removeQuietly(temp);
    throw error;
  }
}

/**
 * Creates `target` holding `data` only if it does not exist, and never with partial content: the
 * bytes go to the new file `temp` ({@link writeNewFileSynced}), which is hard-linked to `target`
 * (a link never replaces a file) and then removed. The caller fsyncs the directory.
 * @param ifLinkUnsupported on one of {@link LINK_UNSUPPORTED_ERRNOS}: `rename` renames `temp` onto
 *   `target` instead (for content-addressed files, where any writer's bytes are the same); `fail`
 *   throws.
 * @returns false when `target` already exists (nothing written, `temp` removed).
 * @throws the `node:fs` error of the failed step, as it is (`temp` removed).
 */
export function createFileExclusive(temp: string, target: string, data: Uint8Array, mode: number, ifLinkUnsupported: 'rename' | 'fail'): boolean {
  writeNewFileSynced(temp, data, mode);
  try {
    linkSync(temp, target);
  } catch (error) {
    if (ifLinkUnsupported === 'rename' && linkUnsupported(error)) {
      try {
        renameSync(temp, target);
        return true;
      } catch (renameError) {
        removeQuietly(temp);
        throw renameError;
      }
    }
    removeQuietly(temp);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  unlinkSync(temp);
  return true;
}

/** Best-effort fsync of a directory so that a rename inside it is durable (no-op where unsupported). */
export function fsyncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not supported on this platform or filesystem */
  }
}
