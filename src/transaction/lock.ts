/**
 * The lock of a directory tree: one gcpatch process at a time writes into a package or an
 * edit-plan root (`apply`, `refactor apply`, `pack`, `recover`, `edit-plan apply`, `edit-plan
 * recover`). The lock is the file `<dir>/.gcpatch/package.lock`, created atomically and
 * exclusively (written to a temp file, fsynced, then hard-linked into place, so it never has
 * partial content) and holding its owner: `{format, pid, hostname, startTime, token, acquiredAt,
 * command}`. A held lock covers the whole tree below its directory: taking a lock also checks the
 * locks of every directory above (and of the directories below that the caller names, see
 * {@link LockOptions.within}); a package transaction, which learns the directories it writes into
 * only as it goes, checks the locks below its root before it writes into them
 * ({@link assertNoLockWithin}). So a package apply and an edit-plan apply into an enclosing or an
 * enclosed root exclude each other, whichever is the outer one.
 *
 * Why two racing transactions cannot both proceed: each first takes its own lock, then checks the
 * other's, and keeps its own until it is done. Say A locks the outer directory and B the inner one.
 * If A's check found no lock of B, B took its lock after that check, hence after A took its lock;
 * B's check comes later still and finds A's lock held. So at least one of them sees the other (both
 * may, and both then give up or wait: fail closed). Checking before taking one's own lock would
 * leave a window in which neither sees the other.
 *
 * A lock whose owner is dead is stale and is broken safely: on the same host, `kill(pid, 0)` fails
 * with ESRCH, or the process now running under that pid started at another time (Linux
 * `/proc/<pid>/stat` field 22 — pid reuse). A lock of another host is never broken (gcpatch cannot
 * see its processes); remove it by hand. Breaking renames the lock away first and deletes it only
 * if it is still the stale owner's, so two processes breaking the same stale lock cannot delete a
 * fresh one.
 *
 * Temporary files carry their writer (src/util/temp-owner.ts): `package.lock.new-<pid>-<start>-<token>`
 * (the lock being created) and `package.lock.stale-<pid>-<start>-<hex>` (a stale lock set aside).
 * Whoever takes the lock removes those whose writer is gone ({@link removeAbandonedLockTemps}); a
 * lock that cannot be taken (a full disk, a live owner past the wait) leaves no empty `.gcpatch/`.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { createFileExclusive, fsyncDirectory } from '../util/atomic.js';
import { ExitCode, GcError, ioError } from '../util/errors.js';
import { ownerAlive, ownerTag, processStartTime } from '../util/temp-owner.js';
import { CONTROL_DIRECTORY, EDITPLAN_JOURNAL_FILE, journalPathOf, pendingJournals } from './journal.js';

export { CONTROL_DIRECTORY, processStartTime };
/** File name of the lock inside {@link CONTROL_DIRECTORY}. */
export const LOCK_FILE = 'package.lock';
/** `format` member of the lock file. */
export const LOCK_FORMAT = 'gcpatch.package-lock.v1';

/** The owner record written into the lock file. `startTime` is the kernel's start tick, or null. */
export interface LockOwner {
  format: typeof LOCK_FORMAT;
  pid: number;
  hostname: string;
  startTime: string | null;
  token: string;
  /** ISO-8601 UTC. */
  acquiredAt: string;
  /** What holds the lock (`apply`, `pack`, `recover`, …), for messages. */
  command: string;
}

/** Options of {@link acquirePackageLock}. */
export interface LockOptions {
  /** How long to wait for a live owner to finish, in milliseconds (default 0: fail at once). */
  waitMs?: number;
  /** What takes the lock, recorded in it (default `gcpatch`). */
  command?: string;
  /**
   * Directories below the locked one that the caller will write into: a live lock of any of them,
   * or of a directory between, excludes the caller as a lock of the directory itself does.
   */
  within?: readonly string[];
}

/** A held lock. {@link PackageLock.release} is idempotent. */
export interface PackageLock {
  readonly file: string;
  readonly owner: LockOwner;
  release(): void;
}

/** Path of the lock file of `packageDir`. */
export function lockPath(packageDir: string): string {
  return join(packageDir, CONTROL_DIRECTORY, LOCK_FILE);
}

/** `alive`, `dead`, or `unknown` (another host) for the owner of a lock. */
export function ownerLiveness(owner: LockOwner): 'alive' | 'dead' | 'unknown' {
  if (owner.hostname !== hostname()) return 'unknown';
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
    // EPERM: a process of another user holds the pid; fall through to the start-time check
  }
  if (owner.startTime !== null) {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.startTime) return 'dead';
  }
  return 'alive';
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readOwner(file: string): { owner: LockOwner | undefined; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(error, file, 'read the lock');
  }
  try {
    const raw = JSON.parse(text) as LockOwner;
    if (raw.format === LOCK_FORMAT && Number.isSafeInteger(raw.pid) && typeof raw.hostname === 'string' && typeof raw.token === 'string') {
      return { owner: raw, text };
    }
  } catch {
    /* unreadable: treated below */
  }
  return { owner: undefined, text };
}

/** Breaks a stale lock whose text was `staleText`; returns true when the lock path is free again. */
function breakStale(file: string, staleText: string): boolean {
  const aside = `${file}.stale-${ownerTag()}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw ioError(error, file, 'break the stale lock');
  }
  let moved = '';
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    /* gone */
  }
  if (moved !== staleText) {
    // Someone else broke it first and a live owner has just taken the lock: put theirs back.
    try {
      linkSync(aside, file);
    } catch {
      /* a third owner already holds it; theirs wins */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
  return moved === staleText;
}

/**
 * Takes the package lock of `packageDir`, waiting up to `waitMs` for a live owner and breaking the
 * lock of a dead one.
 * @returns the held lock; call `release()` in a `finally`.
 * @throws GcError `patch/package-locked` (exit 70) naming the owner (pid, host, command, since) when
 *   a live owner (or one on another host) still holds it after `waitMs`; `io/*` (exit 70).
 */
export function acquirePackageLock(packageDir: string, options: LockOptions = {}): PackageLock {
  const control = join(packageDir, CONTROL_DIRECTORY);
  try {
    mkdirSync(control, { recursive: true });
  } catch (error) {
    throw ioError(error, control, 'create');
  }
  const file = lockPath(packageDir);
  const owner: LockOwner = {
    format: LOCK_FORMAT,
    pid: process.pid,
    hostname: hostname(),
    startTime: processStartTime('self'),
    token: randomBytes(8).toString('hex'),
    acquiredAt: new Date().toISOString(),
    command: options.command ?? 'gcpatch',
  };
  const text = JSON.stringify(owner) + '\n';
  const deadline = Date.now() + Math.max(0, options.waitMs ?? 0);
  const others = coveringLocks(packageDir, options.within ?? []);
  for (;;) {
    let lock: PackageLock;
    try {
      lock = acquireOwn(control, file, owner, text, deadline);
    } catch (error) {
      removeIfEmpty(control); // a full disk or a lock that stayed busy leaves no empty `.gcpatch/`
      throw error;
    }
    const other = liveLockAmong(others);
    if (other === undefined) {
      removeAbandonedLockTemps(control);
      return lock;
    }
    lock.release(); // another lock covers part of this tree: let its owner finish first
    if (Date.now() >= deadline) throw lockedError(other.file, other.owner, other.liveness);
    sleepMs(Math.min(10 + Math.floor(Math.random() * 40), Math.max(1, deadline - Date.now())));
  }
}

/** Removes `dir` when it is empty (no error otherwise: someone else's lock or journal is in it). */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    /* not empty, or gone */
  }
}

/** The lock's temporary names: `package.lock.new-<pid>-<start>-<token>` and `package.lock.stale-<pid>-<start>-<hex>` (older: `.new-<token>`, `.stale-<pid>-<hex>`). */
const LOCK_TEMP = new RegExp(`^${LOCK_FILE.replace('.', '\\.')}\\.(?:new|stale)-(?:([0-9]+)-([0-9]+)-)?([0-9]+-)?[0-9a-f]+$`);

/**
 * The lock's temporary files in `control` whose writer is gone (src/util/temp-owner.ts): a
 * process killed between writing `package.lock.new-…` and linking it, or between setting a stale
 * lock aside and deleting it. A name of an older gcpatch without an owner (`.new-<token>`) counts
 * as abandoned when the lock is not being taken by its writer at this moment, which the caller
 * (holding the lock) knows: every such file is then left over.
 * @returns the names, sorted.
 */
export function abandonedLockTemps(control: string): string[] {
  let names: string[];
  try {
    names = readdirSync(control);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const m = LOCK_TEMP.exec(name);
    if (m === null) continue;
    const pid = m[1] !== undefined ? Number(m[1]) : m[3] !== undefined ? Number(m[3].slice(0, -1)) : undefined;
    if (pid === undefined || !ownerAlive(pid, m[2])) out.push(name);
  }
  return out.sort();
}

/** Removes {@link abandonedLockTemps} of `control` (the caller holds the lock); returns what it removed. */
export function removeAbandonedLockTemps(control: string): string[] {
  const removed: string[] = [];
  for (const name of abandonedLockTemps(control)) {
    try {
      unlinkSync(join(control, name));
      removed.push(name);
    } catch {
      /* gone meanwhile */
    }
  }
  if (removed.length > 0) fsyncDirectory(control);
  return removed;
}

/** Takes the lock file `file` itself (waiting until `deadline` for a live owner). */
function acquireOwn(control: string, file: string, owner: LockOwner, text: string, deadline: number): PackageLock {
  let recreated = 0;
  for (;;) {
    const temp = `${file}.new-${ownerTag()}-${owner.token}`;
    try {
      if (createFileExclusive(temp, file, Buffer.from(text, 'utf8'), 0o644, 'fail')) return makeLock(file, owner);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // The owner we waited for removed the (then empty) control directory when it released the
      // lock: make it again and retry (bounded, so a directory that cannot stay is an I/O error).
      if (code === 'ENOENT' && recreated < 100) {
        recreated++;
        try {
          mkdirSync(control, { recursive: true });
        } catch (mkdirError) {
          throw ioError(mkdirError, control, 'create');
        }
        continue;
      }
      throw ioError(error, file, 'create the lock');
    }
    const current = readOwner(file);
    if (current === undefined) continue; // released meanwhile
    let liveness: 'alive' | 'dead' | 'unknown';
    if (current.owner !== undefined) liveness = ownerLiveness(current.owner);
    else liveness = lockAgeMs(file) > 10_000 ? 'dead' : 'alive'; // garbage older than 10 s: a torn manual edit
    if (liveness === 'dead') {
      breakStale(file, current.text);
      continue;
    }
    if (Date.now() >= deadline) throw lockedError(file, current.owner, liveness);
    sleepMs(Math.min(50, Math.max(1, deadline - Date.now())));
  }
}

/**
 * The lock files that cover part of the tree of `dir` besides its own: those of every directory
 * above it, and of every directory from `dir` (exclusive) down to each of `within`.
 */
function coveringLocks(dir: string, within: readonly string[]): string[] {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = dir;
  }
  const dirs = new Set<string>();
  for (let up = dirname(real); ; up = dirname(up)) {
    dirs.add(up);
    if (dirname(up) === up) break;
  }
  return [...dirs].map((d) => lockPath(d)).concat(locksBetween(real, within));
}

/** The lock files of every directory from `dir` (exclusive) down to each of `within` (inclusive), each once. */
function locksBetween(dir: string, within: Iterable<string>): string[] {
  const dirs = new Set<string>();
  for (const below of within) {
    const rel = relative(dir, below);
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
    const parts = rel.split(sep);
    for (let i = 1; i <= parts.length; i++) dirs.add(join(dir, ...parts.slice(0, i)));
  }
  return [...dirs].map((d) => lockPath(d));
}

/**
 * For a caller that holds the lock of `dir` and is about to write into the directories `within`
 * (absolute paths below `dir`, as built from `dir`): refuses when a live lock (or one of another
 * host) is held on any directory from `dir` (exclusive) down to each of them — a transaction
 * rooted there is writing into the same files. Call it after taking the lock of `dir` and before
 * the first write into `within` (see the module comment for why that order makes two racing
 * transactions see each other). A stale lock there is ignored (its owner is dead).
 * A directory there holding the journal of an interrupted transaction (left by a process that died)
 * is refused too: its recovery owns those files.
 * @throws GcError `patch/package-locked` (exit 70) naming the other lock file and its owner;
 *   `patch/nested-recovery-required` (exit 70) naming the journal.
 */
export function assertNoLockWithin(dir: string, within: Iterable<string>): void {
  const locks = locksBetween(dir, within);
  const other = liveLockAmong(locks);
  if (other !== undefined) throw lockedError(other.file, other.owner, other.liveness);
  assertNoPendingJournalAmong(locks.map((file) => dirname(dirname(file))));
}

/**
 * Refuses when one of `roots` holds the journal of an interrupted transaction (its lock is gone or
 * stale: its process died): its recovery will restore or check the files below that root, so a
 * transaction rooted elsewhere must not write them first. Fails closed; the message names the
 * command that recovers it.
 * @throws GcError `patch/nested-recovery-required` (exit 70) naming the journal.
 */
function assertNoPendingJournalAmong(roots: readonly string[]): void {
  for (const root of roots) {
    const pending = pendingJournals(root)[0];
    if (pending === undefined) continue;
    const journal = journalPathOf(root, pending);
    const fix = pending === EDITPLAN_JOURNAL_FILE ? `gcpatch edit-plan recover --root ${root}` : `gcpatch recover --pkg ${root}`;
    throw new GcError('patch/nested-recovery-required', `an interrupted transaction rooted at ${root} left ${journal}; run \`${fix}\` first, then retry`, {
      exitCode: ExitCode.io,
      location: { file: journal },
      details: { journal },
    });
  }
}

/** The first of `files` held by a live owner (or one on another host), if any. */
function liveLockAmong(files: readonly string[]): { file: string; owner: LockOwner | undefined; liveness: 'alive' | 'unknown' } | undefined {
  for (const file of files) {
    let current;
    try {
      current = readOwner(file);
    } catch {
      continue; // unreadable directory: no lock gcpatch could have taken
    }
    if (current === undefined) continue;
    const liveness = current.owner !== undefined ? ownerLiveness(current.owner) : lockAgeMs(file) > 10_000 ? 'dead' : 'alive';
    if (liveness !== 'dead') return { file, owner: current.owner, liveness };
  }
  return undefined;
}

function lockAgeMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function lockedError(file: string, owner: LockOwner | undefined, liveness: 'alive' | 'unknown') {
  const who = owner === undefined ? 'an unreadable lock' : `${owner.command} (pid ${owner.pid} on ${owner.hostname}, since ${owner.acquiredAt})`;
  const fix =
    liveness === 'unknown'
      ? `the owner runs on another host; if it is gone, delete ${file} by hand`
      : 'wait for it to finish (or pass --lock-wait MS), then retry';
  return new GcError('patch/package-locked', `the package is being changed by ${who}; ${fix}`, {
    exitCode: ExitCode.io,
    details: { lockFile: file, ...(owner !== undefined ? { owner } : {}) },
  });
}

function makeLock(file: string, owner: LockOwner): PackageLock {
  let held = true;
  return {
    file,
    owner,
    release() {
      if (!held) return;
      held = false;
      const current = readOwner(file);
      if (current?.owner?.token === owner.token) {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      }
      try {
        rmdirSync(join(file, '..'));
      } catch {
        /* not empty (a journal, or edit-plan files), or gone */
      }
    },
  };
}
