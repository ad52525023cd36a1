/** Recovery of an interrupted transaction of either kind: read and check its journal, then roll it back or finish it. */
/*
 * One implementation for both journals of `journal.ts` — the apply journal of the package
 * transaction (`src/patch/transaction.ts`) and the edit-plan journal (`src/editplan/transaction.ts`):
 * read and check the journal (exactly the formats earlier gcpatch versions wrote), check every
 * target against its recorded hashes before anything changes, restore every target that holds its
 * after-bytes from its backup (or remove it when the transaction created it), remove stage and
 * backup temps and the directories the transaction created, sync the directories, remove the
 * journal. The in-process roll-back and clean-up of both transactions use the same steps
 * ({@link restoreTargets}, {@link discardTransaction}).
 *
 * What differs between the kinds, and why (the caller passes it as {@link RecoveryRules}):
 * - The journal ({@link JournalFormat}): its file, `format`, members (the apply journal records the
 *   `command` that left it), state names and entry shape (an apply entry may create or remove a
 *   file — a null hash — may create directories and may be `external`, a file another process
 *   rewrites; an edit-plan entry always rewrites an existing file). An edit-plan journal in state
 *   `staging` has touched no target yet, so nothing is checked or restored: only temps go. Each
 *   format is checked as that kind's transaction writes it; only the path rule comes from the
 *   caller (the package's portable module paths, the edit plan's path rules).
 * - How a target is found: the package transaction never writes through a link, so its target is
 *   the package-relative path as is; an edit plan may follow symbolic links to directories inside
 *   its root, so its target is resolved again with real-path containment, and a failed containment
 *   check is a conflict.
 * - Error codes and messages: `patch/journal-invalid` / `patch/recovery-conflict` with the
 *   package's texts, `JOURNAL_INVALID` / `RECOVERY_CONFLICT` of the edit-plan contract.
 * - The names of the fault-hook steps (the crash tests of each kind name them).
 */
import { lstatSync, readdirSync, readFileSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GcError } from '../util/errors.js';
import { ioError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { isHex64 } from '../util/bytes.js';
import { noFault, type FaultHook } from './crash-points.js';
import { errnoOf, removeAllIfPresent, syncDirectories } from './durable.js';
import {
  APPLY_JOURNAL_FILE,
  APPLY_JOURNAL_FORMAT,
  CONTROL_DIRECTORY,
  EDITPLAN_JOURNAL_FILE,
  EDITPLAN_JOURNAL_FORMAT,
  isTxid,
  journalChecksum,
  journalPathOf,
  nativePath,
  readJournalText,
  removeJournal,
  removeOrphanJournalTemps,
  tempName,
  type JournalFile,
} from './journal.js';

/**
 * One journal entry in the shape both kinds map to (the apply journal's own). Paths are
 * `/`-separated and relative to the root; hashes are SHA-256 hex, null = the file is absent.
 */
export interface RecoveryEntry {
  path: string;
  before: string | null;
  after: string | null;
  stage: string | null;
  backup: string | null;
  /** Directories this entry creates, outermost first (root-relative). */
  dirs: string[];
  /** A file another process rewrites: its after-bytes are unknown (rolled back whatever it holds, kept on commit). */
  external?: true;
}

/**
 * Where a journal stands: `staged` — no target touched yet (temps only); `open` — targets may hold
 * their after-bytes, roll back; `committed` — past the commit point, finish.
 */
export type RecoveryPhase = 'staged' | 'open' | 'committed';

/** A checked journal: its transaction id, the command that left it (apply journal only), phase and entries. */
export interface CheckedJournal {
  txid: string;
  command?: string;
  phase: RecoveryPhase;
  entries: RecoveryEntry[];
}

/** What recovery did to one journal entry. */
export interface RecoveredFile {
  path: string;
  action: 'restored' | 'unchanged' | 'kept-new';
}

/** What recovery of one journal did; `txid` and `command` are set when there was a journal (`command` for the apply journal). */
export interface Recovery {
  /** `none`: no journal; `rolled-back`: an interrupted transaction was undone; `completed`: a committed one was finished. */
  action: 'none' | 'rolled-back' | 'completed';
  txid?: string;
  command?: string;
  files: RecoveredFile[];
}

/** One journal format as its transaction writes it. */
export interface JournalFormat {
  file: JournalFile;
  format: string;
  /** The members in their recorded order; the checksum covers exactly these. */
  members: readonly string[];
  /** Each state name and its {@link RecoveryPhase}. */
  phases: Readonly<Record<string, RecoveryPhase>>;
  /** Why the members other than format, txid and state are malformed, or undefined. */
  membersProblem(raw: Record<string, unknown>): string | undefined;
  /** The entry `raw` of transaction `txid` in the common shape, or undefined when it is malformed. */
  entry(raw: unknown, txid: string, pathOk: (path: string) => boolean): RecoveryEntry | undefined;
}

/** The members of `journal` named by `format`, in their recorded order (the checksum covers exactly these). */
export function membersOf(format: JournalFormat, journal: object): Record<string, unknown> {
  return Object.fromEntries(format.members.map((m) => [m, (journal as Record<string, unknown>)[m]]));
}

const hexOrNull = (v: unknown) => v === null || (typeof v === 'string' && isHex64(v));

/** The apply journal (`apply`, `refactor apply`, `pack`): states `open`, `committed`. */
export const APPLY_JOURNAL: JournalFormat = {
  file: APPLY_JOURNAL_FILE,
  format: APPLY_JOURNAL_FORMAT,
  members: ['format', 'txid', 'command', 'state', 'files'],
  phases: { open: 'open', committed: 'committed' },
  membersProblem: (j) => (typeof j.command !== 'string' || !Array.isArray(j.files) ? 'bad members' : undefined),
  entry(raw, txid, pathOk) {
    const e = raw as RecoveryEntry | null;
    const ok =
      e !== null &&
      typeof e === 'object' &&
      typeof e.path === 'string' &&
      pathOk(e.path) &&
      e.path.split('/')[0] !== CONTROL_DIRECTORY &&
      hexOrNull(e.before) &&
      hexOrNull(e.after) &&
      e.stage === (e.after === null ? null : tempName(e.path, 'stage', txid)) &&
      e.backup === (e.before === null ? null : tempName(e.path, 'backup', txid)) &&
      Array.isArray(e.dirs) &&
      (e.external === undefined || (e.external === true && e.after === null && e.dirs.length === 0)) &&
      e.dirs.every((d) => typeof d === 'string' && pathOk(d) && e.path.startsWith(`${d}/`));
    if (!ok) return undefined;
    const { path, before, after, stage, backup, dirs, external } = e;
    return { path, before, after, stage, backup, dirs, ...(external === true ? { external } : {}) };
  },
};

/** The edit-plan journal: states `staging`, `committing`, `committed`; entries `{path, stage, backup, beforeSha256, afterSha256}`. */
export const EDITPLAN_JOURNAL: JournalFormat = {
  file: EDITPLAN_JOURNAL_FILE,
  format: EDITPLAN_JOURNAL_FORMAT,
  members: ['format', 'txid', 'state', 'files'],
  phases: { staging: 'staged', committing: 'open', committed: 'committed' },
  membersProblem: (j) => (!Array.isArray(j.files) ? 'files is not an array' : undefined),
  entry(raw, txid, pathOk) {
    const e = raw as { path: string; stage: string; backup: string; beforeSha256: string; afterSha256: string } | null;
    const ok =
      typeof e === 'object' &&
      e !== null &&
      typeof e.path === 'string' &&
      pathOk(e.path) &&
      e.stage === tempName(e.path, 'stage', txid) &&
      e.backup === tempName(e.path, 'backup', txid) &&
      isHex64(e.beforeSha256) &&
      isHex64(e.afterSha256);
    return ok ? { path: e.path, before: e.beforeSha256, after: e.afterSha256, stage: e.stage, backup: e.backup, dirs: [] } : undefined;
  },
};

/** The fault-hook steps of a clean-up: one before it, one before each entry's temps, one before the journal goes. */
export interface CleanupSteps {
  once?: string;
  each?: (index: number) => string;
  journal?: string;
}

/** Why a target stops recovery (see {@link RecoveryRules.reasons}). */
export type ConflictReason = 'neither' | 'backup' | 'committed';

/** How one kind of transaction is recovered: its journal and what the module header lists as differing. */
export interface RecoveryRules {
  journal: JournalFormat;
  /** True when a root-relative path recorded in the journal is one this kind could have written. */
  pathOk(path: string): boolean;
  /** The error for a damaged journal at `file` (`why`: what is wrong). */
  invalid(why: string, file: string): GcError;
  /** The error for a target that stops recovery (nothing was changed). */
  conflict(path: string, why: string): GcError;
  /** The `why` of each {@link ConflictReason}: neither hash matches, the backup is missing or damaged, a committed target lacks its bytes. */
  reasons: Readonly<Record<ConflictReason, string>>;
  /** The absolute path of entry `index`'s target. @throws the kind's conflict when it cannot be resolved. */
  target(root: string, entry: RecoveryEntry, index: number): string;
  /** The fault-hook step before restoring entry `index`. */
  restoreStep(path: string, index: number): string;
  /** The fault-hook steps of the clean-up after a roll-back or a finish. */
  cleanupSteps(action: 'rolled-back' | 'completed'): CleanupSteps;
}

/** What one entry needs, with its resolved target. */
export interface PlannedEntry {
  entry: RecoveryEntry;
  /** Absolute path of the target. */
  target: string;
  action: RecoveredFile['action'];
}

/** SHA-256 of the regular file `absolute`; null when absent, `other` for a link, directory or device. */
function hashOf(absolute: string): string | null | 'other' {
  try {
    if (!lstatSync(absolute).isFile()) return 'other';
    return sha256Hex(readFileSync(absolute));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return null;
    throw ioError(error, absolute, 'read');
  }
}

/**
 * Reads and checks the journal of `rules` under `root`.
 * @returns the checked journal, or undefined when there is none.
 * @throws the kind's invalid-journal error (exit 70); `io/<errno>` (exit 70).
 */
export function readCheckedJournal(root: string, rules: RecoveryRules): CheckedJournal | undefined {
  const format = rules.journal;
  const text = readJournalText(root, format.file);
  if (text === undefined) return undefined;
  const invalid = (why: string) => rules.invalid(why, journalPathOf(root, format.file));
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalid('not JSON');
  }
  if (j === null || typeof j !== 'object' || j.format !== format.format) throw invalid(`format is not ${format.format}`);
  if (!isTxid(j.txid)) throw invalid('bad txid');
  const txid = j.txid;
  if (typeof j.state !== 'string' || !Object.hasOwn(format.phases, j.state)) throw invalid('bad state');
  const problem = format.membersProblem(j);
  if (problem !== undefined) throw invalid(problem);
  if (j.checksum !== journalChecksum(membersOf(format, j))) throw invalid('checksum mismatch');
  const entries = (j.files as unknown[]).map((raw) => {
    const entry = format.entry(raw, txid, rules.pathOk);
    if (entry === undefined) throw invalid('unexpected file entry');
    return entry;
  });
  return { txid, ...(typeof j.command === 'string' ? { command: j.command } : {}), phase: format.phases[j.state]!, entries };
}

/**
 * Checks every entry against the disk and says what each needs; changes nothing. `staged`: every
 * entry `unchanged` (no target was touched); `open`: `unchanged` (holds its before-bytes) or
 * `restored` (holds its after-bytes, and its backup its before-bytes); `committed`: `kept-new`.
 * @throws the kind's conflict error (nothing changed).
 */
export function planRecovery(root: string, rules: RecoveryRules, phase: RecoveryPhase, entries: readonly RecoveryEntry[]): PlannedEntry[] {
  return entries.map((entry, i) => {
    if (phase === 'staged') return { entry, target: '', action: 'unchanged' };
    const target = rules.target(root, entry, i);
    const current = hashOf(target);
    const fail = (reason: ConflictReason) => rules.conflict(entry.path, rules.reasons[reason]);
    if (phase === 'committed') {
      if (entry.external !== true && current !== entry.after) throw fail('committed');
      return { entry, target, action: 'kept-new' };
    }
    if (current === entry.before) return { entry, target, action: 'unchanged' };
    if (current !== entry.after && entry.external !== true) throw fail('neither');
    if (entry.before !== null && (entry.backup === null || hashOf(nativePath(root, entry.backup)) !== entry.before)) throw fail('backup');
    return { entry, target, action: 'restored' };
  });
}

/**
 * Restores, in reverse order, every planned entry marked `restored`: renames its backup over the
 * target, or removes the target when the transaction created it; then syncs those directories.
 * @param step the fault-hook step before each restore.
 * @throws GcError `io/<errno>` (exit 70).
 */
export function restoreTargets(root: string, planned: readonly PlannedEntry[], step: (path: string, index: number) => string, fault: FaultHook): void {
  const restored = new Set<string>();
  for (let i = planned.length - 1; i >= 0; i--) {
    const { entry, target, action } = planned[i]!;
    if (action !== 'restored') continue;
    fault(step(entry.path, i));
    try {
      if (entry.before === null) unlinkSync(target);
      else renameSync(nativePath(root, entry.backup!), target);
    } catch (error) {
      throw ioError(error, target, 'restore');
    }
    restored.add(dirname(target));
  }
  syncDirectories(restored);
}

/**
 * Ends a transaction on disk: removes the stage and backup temps of `entries` (missing ones are
 * fine), with `removeCreatedDirectories` the directories they created that are empty now, then the
 * journal `file` (durably).
 * @throws GcError `io/<errno>` (exit 70); the journal then stays for the next recovery.
 */
export function discardTransaction(
  root: string,
  file: JournalFile,
  entries: readonly RecoveryEntry[],
  steps: CleanupSteps,
  removeCreatedDirectories: boolean,
  fault: FaultHook,
): void {
  if (steps.once !== undefined) fault(steps.once);
  const temps = entries.map((e) => [e.stage, e.backup].filter((t): t is string => t !== null).map((t) => nativePath(root, t)));
  if (steps.each === undefined) removeAllIfPresent(temps.flat());
  else temps.forEach((paths, i) => (fault(steps.each!(i)), removeAllIfPresent(paths)));
  if (removeCreatedDirectories) {
    for (const e of [...entries].reverse()) {
      for (const dir of [...e.dirs].reverse()) {
        const absolute = nativePath(root, dir);
        try {
          if (readdirSync(absolute).length === 0) rmdirSync(absolute);
        } catch (error) {
          if (errnoOf(error) !== 'ENOENT') throw ioError(error, absolute, 'remove directory');
        }
      }
    }
  }
  if (steps.journal !== undefined) fault(steps.journal);
  removeJournal(root, file);
}

/**
 * Rolls back (`staged`, `open`) or finishes (`committed`) the transaction whose journal is
 * `journal`: all entries are checked first ({@link planRecovery}), then restored, then the temps
 * and the journal removed. Idempotent: a crash in the middle is recovered by running it again.
 * @returns what was done to each entry, in journal order.
 * @throws the kind's conflict error (nothing changed); `io/<errno>` (exit 70).
 */
export function settleJournal(root: string, rules: RecoveryRules, journal: Pick<CheckedJournal, 'phase' | 'entries'>, fault: FaultHook): RecoveredFile[] {
  const planned = planRecovery(root, rules, journal.phase, journal.entries);
  restoreTargets(root, planned, rules.restoreStep, fault);
  const action = journal.phase === 'committed' ? 'completed' : 'rolled-back';
  discardTransaction(root, rules.journal.file, journal.entries, rules.cleanupSteps(action), action === 'rolled-back', fault);
  return planned.map((p) => ({ path: p.entry.path, action: p.action }));
}

/**
 * Recovers the interrupted transaction of kind `rules` under `root` (the caller holds the lock of
 * `root`): deletes orphaned journal temps, reads and checks the journal, and settles it
 * ({@link settleJournal}).
 * @returns what was done (`none` when there was no journal).
 * @throws the kind's invalid-journal error (exit 70) or conflict error (exit 50, nothing changed);
 *   `io/<errno>` (exit 70).
 */
export function recoverJournal(root: string, rules: RecoveryRules, fault: FaultHook = noFault): Recovery {
  removeOrphanJournalTemps(root, rules.journal.file);
  const journal = readCheckedJournal(root, rules);
  if (journal === undefined) return { action: 'none', files: [] };
  const files = settleJournal(root, rules, journal, fault);
  const action = journal.phase === 'committed' ? 'completed' : 'rolled-back';
  return { action, txid: journal.txid, ...(journal.command !== undefined ? { command: journal.command } : {}), files };
}
