/**
 * Recovery of an interrupted edit-plan transaction (`transaction.ts`): the edit-plan rules of the
 * one recovery of `src/transaction/recover.ts`, under the lock of the root (`src/transaction/lock.ts`).
 */
import { EDITPLAN_JOURNAL, recoverJournal, type RecoveredFile, type RecoveryRules } from '../transaction/recover.js';
import { acquirePackageLock } from '../transaction/lock.js';
import { GcError } from '../util/errors.js';
import { editError } from './errors.js';
import { pathProblem } from './path.js';
import { realRoot, resolveTarget } from './target.js';
import type { FaultHooks } from './transaction.js';

/** Result of {@link recover}. */
export interface RecoveryResult {
  /**
   * `none`: no journal; `rolled-back`: an interrupted `staging`/`committing` transaction was undone
   * (all targets hold their old bytes); `completed`: a `committed` transaction was finished (all
   * targets hold their new bytes; leftover backups removed).
   */
  action: 'none' | 'rolled-back' | 'completed';
  /** Per journal file: what recovery did to it. */
  files: RecoveredFile[];
}

/** How the edit-plan journal is recovered (see `src/transaction/recover.ts` for what differs from the package kind). */
export const EDITPLAN_RECOVERY: RecoveryRules = {
  journal: EDITPLAN_JOURNAL,
  pathOk: (path) => pathProblem(path, Number.MAX_SAFE_INTEGER) === undefined,
  invalid: (why, file) => editError('JOURNAL_INVALID', `${why}; inspect it by hand`, {}, { location: { file } }),
  conflict: (path, why) => editError('RECOVERY_CONFLICT', `${why}; recovery changed nothing`, {}, { location: { file: path } }),
  reasons: {
    neither: 'the target matches neither the before nor the after hash',
    backup: 'the backup needed to restore the target is missing or damaged',
    committed: 'the target does not hold the committed bytes',
  },
  target(rootReal, entry, index) {
    try {
      return resolveTarget(rootReal, entry.path, index).absolute;
    } catch (error) {
      if (error instanceof GcError && !error.code.startsWith('io/')) throw EDITPLAN_RECOVERY.conflict(entry.path, error.message);
      throw error;
    }
  },
  restoreStep: (_path, index) => `recover:${index}`,
  cleanupSteps: () => ({ each: (index) => `recover:cleanup:${index}`, journal: 'recover:journal:remove' }),
};

/**
 * Finishes or undoes an interrupted transaction under `root`, preferring to roll back:
 * `staging` → delete temp files (targets were never touched); `committing` → every target holding
 * its after-hash is restored from its backup (whose bytes must hash to before), targets holding
 * their before-hash are left; `committed` → every target must hold its after-hash, leftover
 * backups are deleted. All targets are checked before anything is changed, and a target matching
 * neither hash (or a missing/damaged backup that would be needed) fails with `RECOVERY_CONFLICT`
 * (exit 50) and touches nothing. Recovery is idempotent: a crash during it can be recovered again.
 * Takes the lock of the root first (see {@link applyPlanToRoot}).
 * @param root the repository root.
 * @param hooks `faultAt` test hook; `lockWaitMs`, the wait for a live holder of the lock.
 * @returns what was done.
 * @throws GcError `RECOVERY_CONFLICT`, `JOURNAL_INVALID`, containment codes, `patch/package-locked`
 *   (exit 70), `io/<errno>`.
 */
export function recover(root: string, hooks: FaultHooks & { lockWaitMs?: number } = {}): RecoveryResult {
  const rootReal = realRoot(root);
  const lock = acquirePackageLock(rootReal, { waitMs: hooks.lockWaitMs ?? 0, command: 'edit-plan recover' });
  try {
    return recoverHoldingLock(rootReal, hooks);
  } finally {
    lock.release();
  }
}

/**
 * {@link recover} for a caller that already holds the lock of `root` (`gcpatch recover` and the
 * entry guard of the package commands, `src/patch/guard.ts`).
 */
export function recoverHoldingLock(root: string, hooks: FaultHooks = {}): RecoveryResult {
  const { action, files } = recoverJournal(realRoot(root), EDITPLAN_RECOVERY, hooks.faultAt);
  return { action, files };
}
