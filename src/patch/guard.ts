/**
 * The entry guard of every gcpatch command that reads or changes a package: take the lock of the
 * package directory (`src/transaction/lock.ts`), finish or undo an interrupted transaction of
 * either kind — a package transaction (`transaction.ts`) or an edit-plan apply into the package
 * directory (`src/editplan/transaction.ts`) — remove the evidence store's temporary files whose
 * writer was killed (the lock's own are removed as it is taken), then run. `gcpatch recover` is the
 * same step on its own.
 */
import { dirname } from 'node:path';
import { resolveManifestPath } from '../workspace/package.js';
import { recoverHoldingLock as recoverEditPlan } from '../editplan/recover.js';
import { EDITPLAN_JOURNAL_FILE, pendingJournals } from '../transaction/journal.js';
import { EvidenceStore } from '../store/store.js';
import { acquirePackageLock, type LockOptions } from '../transaction/lock.js';
import { recoverPackage, type RecoveryResult } from './transaction.js';

/** Default wait for a live lock owner, in milliseconds, for commands that only need recovery first. */
export const RECOVERY_LOCK_WAIT_MS = 2_000;

/**
 * Runs `fn` holding the package lock of `packageDir`, after recovering any interrupted transaction.
 * The lock is released when `fn` returns or throws (a real crash leaves it to be broken as stale).
 * @param fault test hook passed to recovery.
 * @throws GcError `patch/package-locked` (exit 70); recovery errors (`patch/recovery-conflict`
 *   exit 50, `patch/journal-invalid` exit 70); whatever `fn` throws.
 */
export function withPackageLock<T>(packageDir: string, options: LockOptions & { fault?: (step: string) => void }, fn: (recovery: RecoveryResult) => T): T {
  const lock = acquirePackageLock(packageDir, options);
  try {
    const recovery = recoverEitherKind(packageDir, options.fault);
    // Temporary files of writers killed before they put them in place (src/util/temp-owner.ts).
    EvidenceStore.forPackage(packageDir).removeAbandonedTemps();
    return fn(recovery);
  } finally {
    lock.release();
  }
}

/**
 * Recovers the package transaction of `packageDir`, then an edit-plan transaction into it (the
 * caller holds the lock). An edit-plan recovery is reported with `command: 'edit-plan apply'`; when
 * both kinds were pending (only possible with journals left by older gcpatch versions, which did
 * not share the lock) the files of both are listed and the action is the package one's.
 */
function recoverEitherKind(packageDir: string, fault: ((step: string) => void) | undefined): RecoveryResult {
  const recovery = recoverPackage(packageDir, fault);
  if (!pendingJournals(packageDir).includes(EDITPLAN_JOURNAL_FILE)) return recovery;
  const edits = recoverEditPlan(packageDir, { faultAt: fault });
  if (recovery.action === 'none') return { action: edits.action, command: 'edit-plan apply', files: edits.files };
  return { ...recovery, files: [...recovery.files, ...edits.files] };
}

/**
 * Before a command that only reads a package (audit, verify-pins, refactor plan/apply checks):
 * when an interrupted transaction's journal exists, take the lock (waiting up to 2 s) and recover
 * it. Cheap when there is none (one `lstat`).
 * @param pkg `package.toml` or the package directory.
 * @param options lock wait and command; `fault` is the recovery's test hook.
 * @returns the recovery done (`action: 'none'` when nothing was pending).
 * @throws as {@link withPackageLock}.
 */
export function recoverPendingTransaction(pkg: string, options: LockOptions & { fault?: (step: string) => void } = {}): RecoveryResult {
  let packageDir: string;
  try {
    packageDir = dirname(resolveManifestPath(pkg));
  } catch {
    return { action: 'none', files: [] }; // the command itself reports the missing package
  }
  if (pendingJournals(packageDir).length === 0) return { action: 'none', files: [] };
  return withPackageLock(packageDir, { waitMs: RECOVERY_LOCK_WAIT_MS, command: 'recover', ...options }, (r) => r);
}

/**
 * `gcpatch recover`: takes the lock and recovers, whether or not a journal exists (also breaks a
 * stale lock of a dead process).
 * @param pkg `package.toml` or the package directory.
 */
export function recoverPackageCommand(pkg: string, options: LockOptions = {}): RecoveryResult & { packageDir: string } {
  const packageDir = dirname(resolveManifestPath(pkg));
  return { ...withPackageLock(packageDir, { command: 'recover', ...options }, (r) => r), packageDir };
}
