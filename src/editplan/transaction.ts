/**
 * The filesystem transaction: apply a validated plan to the files under a root directory so that a
 * crash at any point leaves either all old or all new bytes (after `recover`).
 *
 * Design (crash-recoverable all-or-restored, not observationally atomic):
 * 1. Prepare, no writes: validate the plan; per file resolve the target with real-path containment
 *    (no symlinked target, no parent link leading outside the root or into `.git`/`.gcpatch`),
 *    reject two plan paths naming one file (same device and inode), hash the current raw bytes
 *    with SHA-256 and compare with the plan's `sha256` (`SOURCE_HASH_MISMATCH`), decode UTF-8 and
 *    run `applyEdits` in memory. Any failure here writes nothing. `dryRun` stops here.
 * 2. Take the lock of the root (`src/transaction/lock.ts`, shared with `apply`, `refactor apply`
 *    and `pack`; a live holder → `patch/package-locked` after `lockWaitMs`). Create the journal
 *    `<root>/.gcpatch/editplan-journal.json` exclusively (atomic: temp file, fsync, hard link; an
 *    existing journal of either kind → `RECOVERY_REQUIRED`) with state `staging`, listing per
 *    changed file: path, before/after SHA-256, stage and backup paths (relative to the root).
 * 3. Write next to each target a stage file (new bytes, same mode) and hard-link the target to its
 *    backup name (the old inode keeps the old bytes; a copy where links are unsupported); fsync
 *    all these files together and each directory once.
 * 4. Re-check every target (identity and SHA-256) just before committing; a change → abort, delete
 *    the temp files and journal, `SOURCE_HASH_MISMATCH`.
 * 5. Rewrite the journal atomically with state `committing`, then rename each stage file over its
 *    target in code-point order of the paths; fsync each directory once.
 * 6. Rewrite the journal with state `committed` (the commit point), delete backups, delete the
 *    journal.
 * A failure in steps 2–5 rolls back in-process (committed targets restored from their backups in
 * reverse order); a crash leaves the journal for `recover` (`recover.ts`), which rolls back `staging` and
 * `committing` transactions and finishes `committed` ones, and never touches a target whose bytes
 * match neither the recorded before nor after hash (`RECOVERY_CONFLICT`).
 * Residual race (documented, as in weavatrix-worktree): a concurrent writer can still change a target
 * between the final re-check and its rename.
 *
 * Implements weavatrix.edit-plan.v1 "File entry" (the transaction consumer's hash comparison) and
 * "Path rules" (real-path containment and link checks).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { acquirePackageLock } from '../transaction/lock.js';
import { noFault, SimulatedCrash, type FaultHook } from '../transaction/crash-points.js';
import { SyncBatch } from '../transaction/durable.js';
import { discardTransaction, EDITPLAN_JOURNAL, membersOf, restoreTargets, type PlannedEntry, type RecoveryEntry } from '../transaction/recover.js';
import {
  APPLY_JOURNAL_FILE,
  CONTROL_DIRECTORY,
  createJournal,
  EDITPLAN_JOURNAL_FILE as JOURNAL_FILE,
  EDITPLAN_JOURNAL_FORMAT as JOURNAL_FORMAT,
  journalPathOf,
  journalText,
  nativePath as toNative,
  pendingJournals,
  tempName,
} from '../transaction/journal.js';
import { compareUtf8, decodeUtf8Strict } from '../util/bytes.js';
import { writeFileAtomic } from '../util/atomic.js';
import { GcError, ioError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { applyEdits, type AppliedChange } from './apply.js';
import { editError } from './errors.js';
import { applyLimits, type ApplyLimits, type PlanLimits } from './limits.js';
import type { EditPlan } from './model.js';
import { portablePathKey } from './path.js';
import { validateEditPlan } from './validate.js';
import { realRoot, resolveTarget, type Target } from './target.js';

/** Directory (under the root) holding the lock and the journal; plan paths may not start with it. */
export { CONTROL_DIRECTORY, JOURNAL_FILE, JOURNAL_FORMAT, SimulatedCrash, sha256Hex };

/** Test hooks: `faultAt(step)` is called before each visible step and may throw. */
export interface FaultHooks {
  /**
   * Steps of `applyPlanToRoot`: `prepare`, `journal:create`, `stage:<i>`, `backup:<i>`, `recheck`,
   * `journal:committing`, `commit:<i>`, `journal:committed`, `cleanup:<i>`, `journal:remove`, and
   * during an in-process rollback `rollback:<i>`, `rollback:journal:remove`; of `recover`:
   * `recover:<i>`, `recover:cleanup:<i>`, `recover:journal:remove`. `<i>` is the index in commit
   * order (paths in code-point order).
   */
  faultAt?: FaultHook;
  /** How long to wait for a live holder of the root's lock, in milliseconds (default 0: fail at once). */
  lockWaitMs?: number;
}

/** Options of {@link applyPlanToRoot}. */
export interface TransactionOptions extends FaultHooks {
  /** Plan budgets (defaults: spec "Default budgets"). */
  planLimits?: Partial<PlanLimits>;
  /** Per-file budgets (defaults: 16 MiB source, 2,000 edits, 64 MiB output). */
  applyLimits?: Partial<ApplyLimits>;
  /** Check everything (containment, hashes, `before` texts, overlaps, sizes) but write nothing. */
  dryRun?: boolean;
  /** Called with each file's complete output; false → `VALIDATION_REJECTED` (with `fileIndex`). */
  validator?: (output: string, file: { path: string; fileIndex: number }) => boolean;
}

/** What happened to one plan file. Sizes are UTF-8 bytes. */
export interface FileOutcome {
  fileIndex: number;
  path: string;
  beforeSha256: string;
  afterSha256: string;
  bytesBefore: number;
  bytesAfter: number;
  editsApplied: number;
  /** False when the edits reproduce the original bytes (nothing is written for the file). */
  changed: boolean;
  /** The source text and the output text (for diffs). */
  sourceText: string;
  outputText: string;
  /** The applied edits in sorted order (UTF-16 offsets into the two texts). */
  changes: AppliedChange[];
}

/** Result of {@link applyPlanToRoot}. */
export interface TransactionResult {
  /** Real path of the root. */
  root: string;
  dryRun: boolean;
  /** One outcome per plan file, in plan order. */
  files: FileOutcome[];
  /** True when the commit succeeded but removing backups or the journal failed; run `recover`. */
  cleanupPending: boolean;
}

/** One journal entry. Paths are `/`-separated and relative to the root. */
export interface JournalFile {
  path: string;
  stage: string;
  backup: string;
  beforeSha256: string;
  afterSha256: string;
}

type JournalState = 'staging' | 'committing' | 'committed';

/** The edit-plan journal (`.gcpatch/editplan-journal.json`): format, transaction id, state and one entry per file, in plan order. */
export interface Journal {
  format: typeof JOURNAL_FORMAT;
  txid: string;
  state: JournalState;
  files: JournalFile[];
}

/** Path of the journal for `root`. */
export function journalPath(root: string): string {
  return journalPathOf(root, JOURNAL_FILE);
}

function readBytes(absolute: string): Buffer {
  try {
    return readFileSync(absolute);
  } catch (error) {
    throw ioError(error, absolute, 'read');
  }
}

/** The journal's entries in the shape of the one recovery (`src/transaction/recover.ts`). */
function entriesOf(journal: Journal): RecoveryEntry[] {
  return journal.files.map((f) => EDITPLAN_JOURNAL.entry(f, journal.txid, () => true)!);
}

function recoveryRequired(rootReal: string): GcError {
  if (pendingJournals(rootReal)[0] === APPLY_JOURNAL_FILE) {
    return editError(
      'RECOVERY_REQUIRED',
      `an apply journal exists at ${journalPathOf(rootReal, APPLY_JOURNAL_FILE)}: an apply, refactor apply or pack of this ` +
        `directory was interrupted; run \`gcpatch recover --pkg ${rootReal}\``,
    );
  }
  return editError(
    'RECOVERY_REQUIRED',
    `an edit-plan journal exists at ${journalPath(rootReal)}: another transaction is running or was interrupted; ` +
      `when none is running, run \`gcpatch edit-plan recover --root ${rootReal}\``,
  );
}

/** A prepared file: everything needed to stage and commit it. */
interface Prepared {
  outcome: FileOutcome;
  target: Target;
  mode: number;
  sourceBytes: Buffer;
  outputBytes: Buffer;
}

/**
 * Applies `plan` to the files under `root` as one transaction (see the module comment for the
 * steps and guarantees).
 * @param plan a decoded plan (validated here with `validateEditPlan`).
 * @param root the repository root; plan paths are relative to it.
 * @param options budgets, `dryRun`, a per-file output `validator`, and the `faultAt` test hook.
 * @returns per-file outcomes in plan order (texts, sizes, before/after SHA-256).
 * @throws GcError — validation codes (exit 10); `INVALID_PATH` for a path whose first segment is
 *   `.gcpatch`; `SOURCE_MISSING`, `PATH_ESCAPES_ROOT`, `TARGET_NOT_REGULAR`, `PATH_ALIAS`;
 *   `SOURCE_HASH_MISMATCH` (exit 50, `details.expected`/`actual`); `SOURCE_NOT_UTF8`; per-source
 *   apply codes with `fileIndex` (`BEFORE_MISMATCH` exit 50); `RECOVERY_REQUIRED` (exit 70) when a
 *   journal exists or an in-process rollback failed; `io/<errno>` (exit 70).
 */
export function applyPlanToRoot(plan: EditPlan, root: string, options: TransactionOptions = {}): TransactionResult {
  const fault = options.faultAt ?? noFault;
  validateEditPlan(plan, options.planLimits);
  const limits = applyLimits(options.applyLimits);
  plan.files.forEach((file, fileIndex) => {
    if (portablePathKey(file.path).split('/')[0] === CONTROL_DIRECTORY) {
      throw editError('INVALID_PATH', `the ${CONTROL_DIRECTORY} directory holds gcpatch's journal`, { fileIndex }, { location: { file: file.path } });
    }
  });
  const rootReal = realRoot(root);
  if (pendingJournals(rootReal).length > 0) throw recoveryRequired(rootReal);
  if (options.dryRun)
    return { root: rootReal, dryRun: true, files: prepareFiles(plan, rootReal, limits, options).map((p) => p.outcome), cleanupPending: false };

  const lock = acquirePackageLock(rootReal, {
    waitMs: options.lockWaitMs ?? 0,
    command: 'edit-plan apply',
    within: plan.files.map((f) => dirname(toNative(rootReal, f.path))),
  });
  try {
    if (pendingJournals(rootReal).length > 0) throw recoveryRequired(rootReal); // left by the holder we waited for
    const prepared = prepareFiles(plan, rootReal, limits, options);
    const result: TransactionResult = { root: rootReal, dryRun: false, files: prepared.map((p) => p.outcome), cleanupPending: false };
    fault('prepare');
    const changed = prepared.filter((p) => p.outcome.changed).sort((a, b) => compareUtf8(a.outcome.path, b.outcome.path));
    if (changed.length > 0) result.cleanupPending = commitFiles(rootReal, changed, fault);
    return result;
  } finally {
    lock.release();
  }
}

/**
 * Steps 2–6 for the changed files (in commit order), under the lock.
 * @returns true when the commit succeeded but removing backups or the journal failed.
 */
function commitFiles(rootReal: string, changed: Prepared[], fault: FaultHook): boolean {
  const txid = randomBytes(8).toString('hex');
  const journal: Journal = {
    format: JOURNAL_FORMAT,
    txid,
    state: 'staging',
    files: changed.map((p) => ({
      path: p.outcome.path,
      stage: tempName(p.outcome.path, 'stage', txid),
      backup: tempName(p.outcome.path, 'backup', txid),
      beforeSha256: p.outcome.beforeSha256,
      afterSha256: p.outcome.afterSha256,
    })),
  };
  fault('journal:create');
  if (!createJournal(rootReal, JOURNAL_FILE, journalText(membersOf(EDITPLAN_JOURNAL, journal)), txid)) throw recoveryRequired(rootReal);

  let committed = 0;
  try {
    const staged = new SyncBatch(2 * changed.length);
    try {
      changed.forEach((p, i) => {
        const entry = journal.files[i]!;
        fault(`stage:${i}`);
        staged.write(toNative(rootReal, entry.stage), p.outputBytes, p.mode);
        fault(`backup:${i}`);
        staged.backup(p.target.absolute, toNative(rootReal, entry.backup), p.mode);
        staged.directory(dirname(p.target.absolute));
      });
      staged.flush();
    } finally {
      staged.close();
    }

    fault('recheck');
    changed.forEach((p) => recheck(p, rootReal));

    fault('journal:committing');
    journal.state = 'committing';
    writeFileAtomic(journalPath(rootReal), journalText(membersOf(EDITPLAN_JOURNAL, journal)));
    const renamed = new SyncBatch();
    changed.forEach((p, i) => {
      fault(`commit:${i}`);
      try {
        renameSync(toNative(rootReal, journal.files[i]!.stage), p.target.absolute);
      } catch (error) {
        throw ioError(error, p.outcome.path, 'replace');
      }
      committed = i + 1;
      renamed.directory(dirname(p.target.absolute));
    });
    renamed.flush();
    fault('journal:committed');
    journal.state = 'committed';
    writeFileAtomic(journalPath(rootReal), journalText(membersOf(EDITPLAN_JOURNAL, journal)));
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    rollBackInProcess(rootReal, journal, changed, committed, fault, error);
    throw error;
  }

  try {
    discardTransaction(rootReal, JOURNAL_FILE, entriesOf(journal), { each: (i) => `cleanup:${i}`, journal: 'journal:remove' }, false, fault);
    return false;
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    return true;
  }
}

/** Step 1: containment, identity, hash, UTF-8 and in-memory application for every file. */
function prepareFiles(plan: EditPlan, rootReal: string, limits: ApplyLimits, options: TransactionOptions): Prepared[] {
  const identities = new Map<string, number>();
  return plan.files.map((file, fileIndex) => {
    const indices = { fileIndex };
    const where = { location: { file: file.path } };
    const target = resolveTarget(rootReal, file.path, fileIndex);
    const identity = `${target.stats.dev}:${target.stats.ino}`;
    const earlier = identities.get(identity);
    if (earlier !== undefined) {
      throw editError('PATH_ALIAS', `the same file as ${plan.files[earlier]!.path} (files[${earlier}])`, indices, {
        ...where,
        details: { relatedFileIndex: earlier },
      });
    }
    identities.set(identity, fileIndex);
    if (target.stats.size > BigInt(limits.maxSourceBytes)) {
      throw editError('PLAN_TOO_LARGE', `the file has ${target.stats.size} bytes, over the limit of ${limits.maxSourceBytes}`, indices, where);
    }
    const sourceBytes = readBytes(target.absolute);
    const beforeSha256 = sha256Hex(sourceBytes);
    if (beforeSha256 !== file.sha256) {
      throw editError(
        'SOURCE_HASH_MISMATCH',
        `the file changed since the plan was made: its SHA-256 is ${beforeSha256}, the plan expects ${file.sha256}`,
        indices,
        { ...where, details: { expected: file.sha256, actual: beforeSha256 } },
      );
    }
    const sourceText = decodeUtf8Strict(sourceBytes);
    if (sourceText === undefined) throw editError('SOURCE_NOT_UTF8', 'the file is not valid UTF-8', indices, where);
    const validator = options.validator;
    let applied;
    try {
      applied = applyEdits(sourceText, file.edits, {
        limits,
        fileIndex,
        validator: validator === undefined ? undefined : (output) => validator(output, { path: file.path, fileIndex }),
      });
    } catch (error) {
      throw error instanceof GcError ? error.withLocation({ file: file.path }) : error;
    }
    const outputBytes = Buffer.from(applied.text, 'utf8');
    const outcome: FileOutcome = {
      fileIndex,
      path: file.path,
      beforeSha256,
      afterSha256: sha256Hex(outputBytes),
      bytesBefore: sourceBytes.length,
      bytesAfter: outputBytes.length,
      editsApplied: applied.editsApplied,
      changed: !sourceBytes.equals(outputBytes),
      sourceText,
      outputText: applied.text,
      changes: applied.changes,
    };
    return { outcome, target, mode: Number(target.stats.mode) & 0o7777, sourceBytes, outputBytes };
  });
}

/** Step 4: the target must still be the same file with the same bytes. */
function recheck(p: Prepared, rootReal: string): void {
  const { fileIndex, path, beforeSha256 } = p.outcome;
  const now = resolveTarget(rootReal, path, fileIndex);
  const same = now.stats.dev === p.target.stats.dev && now.stats.ino === p.target.stats.ino;
  const actual = same ? sha256Hex(readBytes(now.absolute)) : 'a different file';
  if (!same || actual !== beforeSha256) {
    throw editError(
      'SOURCE_HASH_MISMATCH',
      'the file changed while the transaction was being prepared; nothing was written',
      { fileIndex },
      { location: { file: path }, details: { expected: beforeSha256, actual } },
    );
  }
}

/**
 * Undoes a failed commit: restores the first `committed` targets from their backups in reverse
 * order, deletes temp files and the journal. If that fails too, the journal stays for `recover`
 * and `RECOVERY_REQUIRED` is thrown with both causes.
 */
function rollBackInProcess(rootReal: string, journal: Journal, changed: Prepared[], committed: number, fault: FaultHook, original: unknown): void {
  try {
    const planned: PlannedEntry[] = entriesOf(journal).map((entry, i) => ({
      entry,
      target: changed[i]!.target.absolute,
      action: i < committed ? 'restored' : 'unchanged',
    }));
    restoreTargets(rootReal, planned, (_path, i) => `rollback:${i}`, fault);
    discardTransaction(
      rootReal,
      JOURNAL_FILE,
      planned.map((p) => p.entry),
      { journal: 'rollback:journal:remove' },
      false,
      fault,
    );
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    const first = original instanceof Error ? original.message : String(original);
    const second = error instanceof Error ? error.message : String(error);
    throw editError(
      'RECOVERY_REQUIRED',
      `the transaction failed (${first}) and rolling it back failed too (${second}); run \`gcpatch edit-plan recover --root ${rootReal}\``,
      {},
      { cause: original },
    );
  }
}
