/**
 * The journaled package transaction behind `apply`, `refactor apply` and `pack`: a list of planned
 * writes (package-relative path → new bytes, or removal) is committed so that after a crash at any
 * moment the next gcpatch command on the package ({@link recoverPackage}) leaves it all-old or
 * all-new. Built on the transaction core (`src/transaction/`: journal, durable writes, crash
 * points, lock) shared with the edit-plan transaction (`src/editplan/transaction.ts`); this kind
 * adds removals, created directories and batches written while the transaction is open (the apply
 * writes modules and `package.toml`, runs acceptance on them, then writes `last_acceptance`).
 *
 * Protocol, per batch ({@link PackageTransaction.write}):
 * 1. record every entry in the journal `<package>/.gcpatch/apply-journal.json` (atomic rewrite,
 *    state `open`) — path, SHA-256 of the bytes before and after (null = absent), the names of its
 *    stage and backup files, the directories it will create — before any of them exists;
 * 2. create missing directories, write each stage file (new bytes, the target's mode) and
 *    hard-link the target to its backup name (the old inode keeps the old bytes, mode and owner;
 *    a copy with the same mode where links are unsupported); then fsync all these files together
 *    and each touched directory once;
 * 3. rename each stage file over its target (or unlink a removed target); then fsync each
 *    directory once — before the journal can reach its commit point.
 * The commit point ({@link PackageTransaction.commit}) is one atomic rewrite of the journal with
 * state `committed`; then backups and the journal are deleted. Until then the transaction is open:
 * a failure rolls it back in-process ({@link PackageTransaction.rollback}), a crash leaves the
 * journal for {@link recoverPackage}, which restores every target holding its after-bytes from its
 * backup (an open journal) or finishes the clean-up (a committed one). Every target is checked
 * against its recorded hashes before anything is changed; one matching neither fails with
 * `patch/recovery-conflict` and changes nothing. Recovery is idempotent.
 *
 * Recovery is the one of `src/transaction/recover.ts` with this kind's rules.
 *
 * Callers hold the lock (`src/transaction/lock.ts`) for the whole transaction and for recovery;
 * before each batch touches a directory below the package, {@link PackageTransaction.write} checks
 * that no transaction rooted between the package and that directory holds its lock.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { ExitCode, GcError, ioError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { noFault, SimulatedCrash, type FaultHook } from '../transaction/crash-points.js';
import { errnoOf, SyncBatch } from '../transaction/durable.js';
import {
  APPLY_JOURNAL_FILE,
  APPLY_JOURNAL_FORMAT,
  journalPathOf,
  journalText,
  nativePath as native,
  pendingJournals,
  saveJournal,
  tempName,
} from '../transaction/journal.js';
import {
  APPLY_JOURNAL,
  discardTransaction,
  membersOf,
  recoverJournal,
  settleJournal,
  type RecoveredFile,
  type Recovery,
  type RecoveryEntry,
  type RecoveryRules,
} from '../transaction/recover.js';
import { assertNoLockWithin } from '../transaction/lock.js';
import { portablePathProblem } from '../workspace/path.js';
import { PatchCode, patchError } from './protocol/errors.js';

export { APPLY_JOURNAL_FILE, APPLY_JOURNAL_FORMAT, SimulatedCrash };
export { setDurableWritesForTesting } from '../transaction/durable.js';

/** One planned write: package-relative `/`-separated path, new bytes or `undefined` to remove. */
export interface PlannedWrite {
  path: string;
  bytes: Uint8Array | undefined;
  /** Fault-hook step name called just before this entry's commit (default `write:<path>`/`remove:<path>`). */
  step?: string;
}

/** One journal entry (the shape recovery reads, `src/transaction/recover.ts`). */
type JournalEntry = RecoveryEntry;

interface Journal {
  format: typeof APPLY_JOURNAL_FORMAT;
  txid: string;
  command: string;
  state: 'open' | 'committed';
  files: JournalEntry[];
}

/** Path of the apply journal of `packageDir`. */
export function applyJournalPath(packageDir: string): string {
  return journalPathOf(packageDir, APPLY_JOURNAL_FILE);
}

/** Current state of a target: `absent`, its bytes and mode, or `other` (link, directory, …). */
function inspectTarget(absolute: string): { kind: 'absent' } | { kind: 'file'; bytes: Buffer; mode: number } | { kind: 'other' } {
  let st;
  try {
    st = lstatSync(absolute);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return { kind: 'absent' };
    throw ioError(error, absolute, 'inspect');
  }
  if (!st.isFile()) return { kind: 'other' };
  try {
    return { kind: 'file', bytes: readFileSync(absolute), mode: st.mode & 0o7777 };
  } catch (error) {
    throw ioError(error, absolute, 'read');
  }
}

/** The journal's members in their recorded order (the checksum covers exactly these). */
function members(j: Journal): object {
  return membersOf(APPLY_JOURNAL, j);
}

function save(packageDir: string, j: Journal): void {
  saveJournal(packageDir, APPLY_JOURNAL_FILE, journalText(members(j)));
}

/**
 * The directories on the way to `path` (package-relative, `/`-separated) that do not exist yet,
 * outermost first. The walk goes up from the target and stops at the first directory that exists
 * (remembered in `directories` for the rest of the batch).
 * @throws GcError `patch/symlink-target` (exit 10) when a component is a symbolic link or a file;
 *   `io/*` (exit 70) when one cannot be inspected.
 */
function missingDirectories(packageDir: string, path: string, directories: Set<string>): string[] {
  const dirs: string[] = [];
  const parts = path.split('/');
  for (let i = parts.length - 1; i >= 1; i--) {
    const dir = parts.slice(0, i).join('/');
    if (directories.has(dir)) break;
    let st;
    try {
      st = lstatSync(native(packageDir, dir));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') {
        dirs.unshift(dir);
        continue;
      }
      throw ioError(error, native(packageDir, dir), 'inspect');
    }
    if (!st.isDirectory()) {
      throw patchError(PatchCode.symlinkTarget, `${path}: ${dir} is not a directory (a symbolic link or a file); gcpatch never writes through links`, {
        at: path,
      });
    }
    directories.add(dir);
    break;
  }
  return dirs;
}

/**
 * An open transaction on one package. Create it with {@link PackageTransaction.begin} while holding
 * the package lock, {@link write} batches, then {@link commit} or {@link rollback}.
 */
export class PackageTransaction {
  private readonly journal: Journal;
  private saved = false;
  private finished = false;

  private constructor(
    readonly packageDir: string,
    command: string,
    private readonly fault: FaultHook,
  ) {
    this.journal = { format: APPLY_JOURNAL_FORMAT, txid: randomBytes(8).toString('hex'), command, state: 'open', files: [] };
  }

  /**
   * Opens a transaction (nothing is written until the first {@link write}).
   * @param fault test hook called before every step (`journal:open`, `stage:<path>`, `backup:<path>`,
   *   the entry's commit step, `journal:committed`, `cleanup`, `rollback:<path>`).
   * @throws GcError `io/eexist` (exit 70) when a journal exists: recover it first (under the lock).
   */
  static begin(packageDir: string, command: string, fault: FaultHook = noFault): PackageTransaction {
    if (pendingJournals(packageDir).includes(APPLY_JOURNAL_FILE)) {
      throw new GcError('io/eexist', `an apply journal exists at ${applyJournalPath(packageDir)}; run \`gcpatch recover --pkg ${packageDir}\``, {
        exitCode: ExitCode.io,
      });
    }
    return new PackageTransaction(packageDir, command, fault);
  }

  /** The package-relative paths written so far (journal order). */
  get paths(): string[] {
    return this.journal.files.map((f) => f.path);
  }

  /**
   * Writes one batch as described in the module comment; entries whose bytes already match are
   * skipped. On any failure the caller must {@link rollback}.
   * @throws GcError `patch/symlink-target` (exit 10) when a target or one of its directories is not
   *   a regular file/directory; `patch/package-locked` (exit 70, nothing of this batch written)
   *   when a directory between the package and a target is locked by a live transaction rooted
   *   there (`assertNoLockWithin`, `src/transaction/lock.ts`); `io/*` (exit 70).
   */
  write(writes: readonly PlannedWrite[]): void {
    const { packageDir, journal } = this;
    const batch: { entry: JournalEntry; bytes: Uint8Array | undefined; mode: number | undefined; step: string }[] = [];
    const written = new Set(journal.files.map((f) => f.path));
    /** Directories on the way to a target already found to be directories, in this batch. */
    const directories = new Set<string>();
    for (const w of writes) {
      if (written.has(w.path)) {
        throw new GcError('io/internal', `${w.path} is written twice in one transaction`, { exitCode: ExitCode.io });
      }
      const absolute = native(packageDir, w.path);
      const current = inspectTarget(absolute);
      if (current.kind === 'other') {
        throw patchError(
          PatchCode.symlinkTarget,
          `${w.path} is not a regular file (a symbolic link, directory or device); gcpatch replaces only regular files`,
          {
            at: w.path,
          },
        );
      }
      const before = current.kind === 'file' ? sha256Hex(current.bytes) : null;
      const after = w.bytes === undefined ? null : sha256Hex(w.bytes);
      if (before === after) continue;
      const dirs = missingDirectories(packageDir, w.path, directories);
      written.add(w.path);
      batch.push({
        entry: {
          path: w.path,
          before,
          after,
          stage: after === null ? null : tempName(w.path, 'stage', journal.txid),
          backup: before === null ? null : tempName(w.path, 'backup', journal.txid),
          dirs: w.bytes === undefined ? [] : dirs,
        },
        bytes: w.bytes,
        mode: current.kind === 'file' ? current.mode : undefined,
        step: w.step ?? `${w.bytes === undefined ? 'remove' : 'write'}:${w.path}`,
      });
    }
    if (batch.length === 0) return;
    assertNoLockWithin(
      packageDir,
      batch.map((b) => dirname(native(packageDir, b.entry.path))),
    ); // a transaction rooted below writes there too
    // 1. journal first: every temp name is recorded before it exists
    this.fault(this.saved ? 'journal:extend' : 'journal:open');
    for (const item of batch.map((b) => b.entry)) journal.files.push(item);
    save(packageDir, journal);
    this.saved = true;
    // 2. directories, stage and backup files; their bytes and names synced together
    const sync = new SyncBatch(batch.length);
    try {
      this.stage(batch, sync);
      sync.flush();
    } finally {
      sync.close();
    }
    // 3. renames (and removals), in order; each directory synced once, before any commit point
    const renamed = new SyncBatch();
    for (const b of batch) {
      this.fault(b.step);
      const absolute = native(packageDir, b.entry.path);
      try {
        if (b.entry.stage !== null) renameSync(native(packageDir, b.entry.stage), absolute);
        else unlinkSync(absolute);
      } catch (error) {
        throw ioError(error, absolute, b.entry.stage !== null ? 'replace' : 'remove');
      }
      renamed.directory(dirname(absolute));
    }
    renamed.flush();
  }

  /** Step 2 of {@link write}: creates missing directories, stage files and backups. */
  private stage(batch: readonly { entry: JournalEntry; bytes: Uint8Array | undefined; mode: number | undefined }[], sync: SyncBatch): void {
    const { packageDir } = this;
    for (const b of batch) {
      const absolute = native(packageDir, b.entry.path);
      if (b.entry.dirs.length > 0) {
        try {
          mkdirSync(dirname(absolute), { recursive: true });
        } catch (error) {
          throw ioError(error, dirname(absolute), 'create directory');
        }
        // every directory created, and the one holding the outermost, gain entries
        let dir = dirname(absolute);
        for (let i = b.entry.dirs.length; i >= 0; i--, dir = dirname(dir)) sync.directory(dir);
      }
      if (b.entry.stage !== null) {
        this.fault(`stage:${b.entry.path}`);
        sync.write(native(packageDir, b.entry.stage), b.bytes!, b.mode);
      }
      if (b.entry.backup !== null) {
        this.fault(`backup:${b.entry.path}`);
        sync.backup(absolute, native(packageDir, b.entry.backup), b.mode);
      }
      sync.directory(dirname(absolute));
    }
  }

  /**
   * Journals a file that another process is about to rewrite while this transaction is open (the
   * `genesis test` runner writes `.genesis/last_acceptance` itself; see `acceptance/genesis-test.ts`): its
   * current bytes are kept in a backup, so a rollback — in-process or by recovery after a crash —
   * restores them whatever the other process left; a commit keeps what it wrote. The path must not
   * be written by this transaction, before or after.
   * @throws GcError `patch/symlink-target` (exit 10) when the file is not a regular file;
   *   `patch/package-locked` (exit 70) as {@link write}; `io/*` (exit 70).
   */
  admitExternalWrite(path: string): void {
    const { packageDir, journal } = this;
    if (journal.files.some((f) => f.path === path)) {
      throw new GcError('io/internal', `${path} is written twice in one transaction`, { exitCode: ExitCode.io });
    }
    const absolute = native(packageDir, path);
    const current = inspectTarget(absolute);
    if (current.kind === 'other') {
      throw patchError(PatchCode.symlinkTarget, `${path} is not a regular file (a symbolic link, directory or device); gcpatch replaces only regular files`, {
        at: path,
      });
    }
    const before = current.kind === 'file' ? sha256Hex(current.bytes) : null;
    const entry: JournalEntry = {
      path,
      before,
      after: null,
      stage: null,
      backup: before === null ? null : tempName(path, 'backup', journal.txid),
      dirs: [],
      external: true,
    };
    assertNoLockWithin(packageDir, [dirname(absolute)]);
    this.fault(this.saved ? 'journal:extend' : 'journal:open');
    journal.files.push(entry);
    save(packageDir, journal);
    this.saved = true;
    if (entry.backup !== null) {
      this.fault(`backup:${path}`);
      const sync = new SyncBatch();
      try {
        sync.backup(absolute, native(packageDir, entry.backup), current.kind === 'file' ? current.mode : undefined);
        sync.directory(dirname(absolute));
        sync.flush();
      } finally {
        sync.close();
      }
    }
  }

  /**
   * The commit point: the journal is rewritten with state `committed` in one atomic rename; then
   * backups and the journal are deleted (a failure there is left for the next recovery).
   */
  commit(): void {
    if (this.finished) return;
    if (this.saved) {
      this.fault('journal:committed');
      this.journal.state = 'committed';
      try {
        save(this.packageDir, this.journal);
      } catch (error) {
        this.journal.state = 'open'; // the atomic rewrite failed: the journal on disk is still open
        throw error;
      }
    }
    this.finished = true;
    if (!this.saved) return;
    try {
      this.fault('cleanup');
      discardCommitted(this.packageDir, this.journal, this.fault);
    } catch (error) {
      if (error instanceof SimulatedCrash) throw error;
      /* committed; the next command's recovery deletes what is left */
    }
  }

  /**
   * Undoes every write of the open transaction (see {@link recoverPackage}).
   * @throws GcError `patch/rollback-failed` (exit 70) when the package cannot be restored; the
   *   journal stays for `gcpatch recover`.
   */
  rollback(cause: unknown): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.saved) return;
    try {
      rollBack(this.packageDir, this.journal, this.fault);
    } catch (error) {
      if (error instanceof SimulatedCrash) throw error;
      const original = cause instanceof GcError ? `${cause.code}: ${cause.message}` : String(cause);
      const problem = error instanceof Error ? error.message : String(error);
      throw new GcError(
        PatchCode.rollbackFailed,
        `rollback after a failed apply (${original}) could not restore the package: ${problem}; ` +
          `fix the cause, then run \`gcpatch recover --pkg ${this.packageDir}\` (the journal was kept)`,
        { exitCode: ExitCode.io, cause, details: { problems: [problem] } },
      );
    }
  }
}

export type { RecoveredFile } from '../transaction/recover.js';

/** Result of {@link recoverPackage}: `txid` and `command` (`apply`, `pack`, …) are set when there was a journal. */
export type RecoveryResult = Recovery;

/** How the apply journal is recovered (see `src/transaction/recover.ts` for what differs from the edit-plan kind). */
const PACKAGE_RECOVERY: RecoveryRules = {
  journal: APPLY_JOURNAL,
  pathOk: (path) => portablePathProblem(path) === undefined,
  invalid: (why, file) =>
    new GcError(
      PatchCode.journalInvalid,
      `the apply journal is damaged (${why}); inspect ${file} by hand — it names every file the interrupted transaction touched`,
      {
        exitCode: ExitCode.io,
        location: { file },
      },
    ),
  conflict: (path, why) =>
    new GcError(PatchCode.recoveryConflict, `${path}: ${why}; recovery changed nothing — inspect the file, then run \`gcpatch recover\` again`, {
      exitCode: ExitCode.verificationFailed,
      location: { file: path },
    }),
  reasons: {
    neither: 'the file matches neither its recorded before nor after bytes',
    backup: 'the backup needed to restore it is missing or damaged',
    committed: 'the committed transaction recorded other bytes for this file',
  },
  target: (packageDir, entry) => native(packageDir, entry.path),
  restoreStep: (path) => `rollback:${path}`,
  cleanupSteps: (action) => ({ once: action === 'rolled-back' ? 'rollback:cleanup' : 'finish:cleanup' }),
};

/** Undoes the open transaction `journal` (in-process, or by recovery). */
function rollBack(packageDir: string, journal: Journal, fault: FaultHook): RecoveredFile[] {
  return settleJournal(packageDir, PACKAGE_RECOVERY, { phase: 'open', entries: journal.files }, fault);
}

/**
 * Ends the transaction this process just committed: removes the backups and the journal, as
 * recovery's finish of a committed journal does (`settleJournal` in src/transaction/recover.ts),
 * without its checks. Every stage file was renamed over its target in step 3 of
 * {@link PackageTransaction.write} before the commit point (a failed rename throws, and the caller
 * rolls back instead of committing), and the package lock has been held throughout, so every target
 * holds the after-bytes this process wrote and no stage name is left: re-reading and re-hashing the
 * targets, and unlinking stage names, would only repeat what this process knows. Recovery after a
 * crash cannot know it and checks every target first. Same fault steps as that finish.
 * @throws GcError `io/<errno>` (exit 70); the committed journal then stays for the next recovery.
 */
function discardCommitted(packageDir: string, journal: Journal, fault: FaultHook): void {
  const backups = journal.files.map((e) => ({ ...e, stage: null }));
  discardTransaction(packageDir, APPLY_JOURNAL_FILE, backups, PACKAGE_RECOVERY.cleanupSteps('completed'), false, fault);
}

/** True when `packageDir` holds an apply journal (an interrupted transaction). */
export function hasPendingTransaction(packageDir: string): boolean {
  return pendingJournals(packageDir).includes(APPLY_JOURNAL_FILE);
}

/**
 * Rolls an interrupted transaction of `packageDir` back (journal `open`) or forward (`committed`)
 * and deletes its temp files and journal; also deletes orphaned journal temp files. The caller
 * holds the package lock.
 * @returns what was done (`none` when there was no journal).
 * @throws GcError `patch/recovery-conflict` (exit 50, nothing changed), `patch/journal-invalid`
 *   (exit 70), `io/*` (exit 70).
 */
export function recoverPackage(packageDir: string, fault: FaultHook = noFault): RecoveryResult {
  return recoverJournal(packageDir, PACKAGE_RECOVERY, fault);
}
