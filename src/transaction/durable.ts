/**
 * Durable writes for the transactions: exclusive creation of stage and backup files, and batched
 * fsyncs — the files of a batch are synced together (concurrently) and each directory once.
 */
import { closeSync, constants, fchmodSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { linkUnsupported } from '../util/atomic.js';
import { ioError } from '../util/errors.js';
import { fsyncConcurrently, startFsyncHelper, unlinkConcurrently } from './parallel-fsync.js';

let durable = true;

/**
 * Tests only: skip the fsync calls of transactions and recovery in this process. A simulated crash
 * (a thrown `SimulatedCrash`, like `kill -9`) never loses written data — the kernel keeps it — so
 * the crash-at-every-step tests stay exact without paying for the fsyncs; fsync guards against
 * power loss, which no test here can simulate. Never call this in the product.
 */
export function setDurableWritesForTesting(on: boolean): void {
  durable = on;
}

/** Below this many descriptors a batch is synced one by one (starting the helper thread costs more). */
const CONCURRENT_FROM = 8;

/** The errno code of a failed `node:fs` call, if any. */
export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Deletes `absolute`; a missing file is fine. @throws GcError `io/<errno>` (exit 70). */
export function removeIfPresent(absolute: string): void {
  try {
    unlinkSync(absolute);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw ioError(error, absolute, 'remove');
  }
}

/**
 * Deletes every file in `paths` (missing ones are fine), concurrently when there are many.
 * @throws GcError `io/<errno>` (exit 70) naming the first that could not be deleted.
 */
export function removeAllIfPresent(paths: readonly string[]): void {
  const failures = paths.length >= CONCURRENT_FROM ? unlinkConcurrently(paths) : undefined;
  if (failures === undefined) {
    for (const path of paths) removeIfPresent(path);
    return;
  }
  const first = failures.sort((a, b) => a.index - b.index)[0];
  if (first !== undefined) throw ioError(first.error, paths[first.index]!, 'remove');
}

/**
 * Collects the fsyncs of one step of a transaction and issues them together: the files written
 * through {@link write} (their descriptors stay open until {@link flush}) and the directories named
 * with {@link directory} (each synced once, however often named). {@link flush} returns when all
 * are on disk; {@link close} (in a `finally`) closes whatever a failure left open.
 */
export class SyncBatch {
  private files: { fd: number; path: string }[] = [];
  private readonly dirs = new Set<string>();

  /** @param expected how many files the step will write (a large step starts the fsync helper early). */
  constructor(expected = 0) {
    if (durable && expected >= CONCURRENT_FROM) startFsyncHelper();
  }

  /**
   * Creates `absolute` exclusively with `bytes`; `mode` undefined → 0666 minus the umask (a new
   * file), else exactly `mode`. The bytes are synced at the next {@link flush}.
   * @throws GcError `io/<errno>` (exit 70), e.g. `io/eexist` when the file exists.
   */
  write(absolute: string, bytes: Uint8Array, mode: number | undefined): void {
    let fd: number | undefined;
    try {
      fd = openSync(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode === undefined ? 0o666 : 0o600);
      if (mode !== undefined) fchmodSync(fd, mode);
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      throw ioError(error, absolute, 'write');
    }
    if (durable) this.files.push({ fd, path: absolute });
    else closeSync(fd);
    if (this.files.length >= 256) this.syncFiles(); // bounded number of open descriptors
  }

  /**
   * Keeps the current bytes of `absolute` under the name `backup`: a hard link (the old inode keeps
   * the bytes, mode and owner), or — where links are unsupported (`LINK_UNSUPPORTED_ERRNOS` in
   * `src/util/atomic.ts`) — a copy with `mode`, synced at the next {@link flush}.
   * @throws GcError `io/<errno>` (exit 70).
   */
  backup(absolute: string, backup: string, mode: number | undefined): void {
    try {
      linkSync(absolute, backup);
    } catch (error) {
      if (!linkUnsupported(error)) throw ioError(error, backup, 'write backup');
      let bytes: Buffer;
      try {
        bytes = readFileSync(absolute);
      } catch (readError) {
        throw ioError(readError, absolute, 'read');
      }
      this.write(backup, bytes, mode);
    }
  }

  /** Names a directory whose entries changed; it is synced once at the next {@link flush}. */
  directory(dir: string): void {
    if (durable) this.dirs.add(dir);
  }

  /**
   * Syncs every pending file, then every pending directory (best effort, as
   * `fsyncDirectory` in `src/util/atomic.ts`), and closes them.
   * @throws GcError `io/<errno>` (exit 70) naming the first file whose fsync failed.
   */
  flush(): void {
    this.syncFiles();
    const fds: number[] = [];
    try {
      for (const dir of this.dirs) {
        try {
          fds.push(openSync(dir, constants.O_RDONLY));
        } catch {
          /* not supported on this platform or filesystem */
        }
      }
      this.dirs.clear();
      syncAll(fds); // failures ignored: directory fsync is best effort
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /** Closes the descriptors of unsynced files (after a failure; a no-op after {@link flush}). */
  close(): void {
    for (const { fd } of this.files) {
      try {
        closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    this.files = [];
    this.dirs.clear();
  }

  private syncFiles(): void {
    const files = this.files;
    this.files = [];
    try {
      const failure = syncAll(files.map((f) => f.fd))[0];
      if (failure !== undefined) throw ioError(failure.error, files[failure.index]!.path, 'write');
    } finally {
      for (const { fd } of files) closeSync(fd);
    }
  }
}

/** fsyncs `fds` (concurrently when there are many); returns the failures in index order. */
function syncAll(fds: readonly number[]): { index: number; error: unknown }[] {
  if (fds.length >= CONCURRENT_FROM) {
    const failures = fsyncConcurrently(fds);
    if (failures !== undefined) return failures.sort((a, b) => a.index - b.index);
  }
  const failures: { index: number; error: unknown }[] = [];
  fds.forEach((fd, index) => {
    try {
      fsyncSync(fd);
    } catch (error) {
      failures.push({ index, error });
    }
  });
  return failures;
}

/** Syncs the directories in `dirs`, each once, concurrently when there are many (best effort). */
export function syncDirectories(dirs: Iterable<string>): void {
  const batch = new SyncBatch();
  for (const dir of dirs) batch.directory(dir);
  batch.flush();
}
