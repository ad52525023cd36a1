/**
 * Recovery of an interrupted edit-plan transaction (`transaction.ts`): read and check its journal,
 * then roll it back or finish it, under the lock of the root (`src/transaction/lock.ts`).
 */
import { lstatSync, readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { noFault } from '../transaction/crash-points.js';
import { errnoOf, removeIfPresent, syncDirectories } from '../transaction/durable.js';
import {
  EDITPLAN_JOURNAL_FILE as JOURNAL_FILE,
  EDITPLAN_JOURNAL_FORMAT as JOURNAL_FORMAT,
  isTxid,
  journalChecksum,
  nativePath as toNative,
  readJournalText,
  removeJournal,
  removeOrphanJournalTemps,
  tempName,
} from '../transaction/journal.js';
import { acquirePackageLock } from '../transaction/lock.js';
import { isHex64 } from '../util/bytes.js';
import { GcError, ioError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { editError } from './errors.js';
import { pathProblem } from './path.js';
import { journalPath, members, realRoot, resolveTarget, type FaultHooks, type Journal, type JournalFile } from './transaction.js';

/** Result of {@link recover}. */
export interface RecoveryResult {
  /**
   * `none`: no journal; `rolled-back`: an interrupted `staging`/`committing` transaction was undone
   * (all targets hold their old bytes); `completed`: a `committed` transaction was finished (all
   * targets hold their new bytes; leftover backups removed).
   */
  action: 'none' | 'rolled-back' | 'completed';
  /** Per journal file: what recovery did to it. */
  files: Array<{ path: string; action: 'restored' | 'unchanged' | 'kept-new' }>;
}

/** Reads and checks the journal. @throws `JOURNAL_INVALID` (exit 70). */
function readJournal(rootReal: string): Journal | undefined {
  const path = journalPath(rootReal);
  const text = readJournalText(rootReal, JOURNAL_FILE);
  if (text === undefined) return undefined;
  const invalid = (why: string) => editError('JOURNAL_INVALID', `${why}; inspect it by hand`, {}, { location: { file: path } });
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalid('not JSON');
  }
  const journal = raw as unknown as Journal & { checksum?: unknown };
  if (journal.format !== JOURNAL_FORMAT) throw invalid(`format is not ${JOURNAL_FORMAT}`);
  if (!isTxid(journal.txid)) throw invalid('bad txid');
  if (!['staging', 'committing', 'committed'].includes(journal.state)) throw invalid('bad state');
  if (!Array.isArray(journal.files)) throw invalid('files is not an array');
  if (journal.checksum !== journalChecksum(members(journal))) throw invalid('checksum mismatch');
  for (const entry of journal.files as unknown[] as Array<JournalFile | null>) {
    const ok =
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.path === 'string' &&
      pathProblem(entry.path, Number.MAX_SAFE_INTEGER) === undefined &&
      entry.stage === tempName(entry.path, 'stage', journal.txid) &&
      entry.backup === tempName(entry.path, 'backup', journal.txid) &&
      isHex64(entry.beforeSha256) &&
      isHex64(entry.afterSha256);
    if (!ok) throw invalid('unexpected file entry');
  }
  return journal;
}

function hashIfFile(absolute: string): string | undefined {
  try {
    if (!lstatSync(absolute).isFile()) return undefined;
    return sha256Hex(readFileSync(absolute));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw ioError(error, absolute, 'read');
  }
}

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
  const fault = hooks.faultAt ?? noFault;
  const rootReal = realRoot(root);
  removeOrphanJournalTemps(rootReal, JOURNAL_FILE);
  const journal = readJournal(rootReal);
  if (journal === undefined) return { action: 'none', files: [] };

  const files: RecoveryResult['files'] = [];
  if (journal.state === 'staging') {
    journal.files.forEach((entry) => files.push({ path: entry.path, action: 'unchanged' }));
  } else {
    const plans = journal.files.map((entry, i) => {
      const conflict = (why: string) =>
        editError('RECOVERY_CONFLICT', `${why}; recovery changed nothing`, {}, { location: { file: entry.path } });
      let target: string;
      try {
        target = resolveTarget(rootReal, entry.path, i).absolute;
      } catch (error) {
        if (error instanceof GcError && !error.code.startsWith('io/')) throw conflict(error.message);
        throw error;
      }
      const current = hashIfFile(target);
      if (journal.state === 'committed') {
        if (current !== entry.afterSha256) throw conflict('the target does not hold the committed bytes');
        return { entry, target, action: 'kept-new' as const };
      }
      if (current === entry.beforeSha256) return { entry, target, action: 'unchanged' as const };
      if (current !== entry.afterSha256) throw conflict('the target matches neither the before nor the after hash');
      if (hashIfFile(toNative(rootReal, entry.backup)) !== entry.beforeSha256) {
        throw conflict('the backup needed to restore the target is missing or damaged');
      }
      return { entry, target, action: 'restored' as const };
    });
    const restored = new Set<string>();
    for (let i = plans.length - 1; i >= 0; i--) {
      const { entry, target, action } = plans[i]!;
      if (action === 'restored') {
        fault(`recover:${i}`);
        try {
          renameSync(toNative(rootReal, entry.backup), target);
        } catch (error) {
          throw ioError(error, entry.path, 'restore');
        }
        restored.add(dirname(target));
      }
    }
    syncDirectories(restored);
    plans.forEach(({ entry, action }) => files.push({ path: entry.path, action }));
  }
  journal.files.forEach((entry, i) => {
    fault(`recover:cleanup:${i}`);
    removeIfPresent(toNative(rootReal, entry.stage));
    removeIfPresent(toNative(rootReal, entry.backup));
  });
  fault('recover:journal:remove');
  removeJournal(rootReal, JOURNAL_FILE);
  return { action: journal.state === 'committed' ? 'completed' : 'rolled-back', files };
}
