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
 * 2. Create the journal `<root>/.gcpatch/editplan-journal.json` exclusively (atomic: temp file,
 *    fsync, hard link; an existing journal → `RECOVERY_REQUIRED`) with state `staging`, listing per
 *    changed file: path, before/after SHA-256, stage and backup paths (relative to the root).
 * 3. Write next to each target a stage file (new bytes) and a backup file (old bytes), same mode,
 *    each fsynced; fsync their directories.
 * 4. Re-check every target (identity and SHA-256) just before committing; a change → abort, delete
 *    the temp files and journal, `SOURCE_HASH_MISMATCH`.
 * 5. Rewrite the journal atomically with state `committing`, then rename each stage file over its
 *    target in code-point order of the paths, fsyncing each directory.
 * 6. Rewrite the journal with state `committed` (the commit point), delete backups, delete the
 *    journal.
 * A failure in steps 2–5 rolls back in-process (committed targets restored from their backups in
 * reverse order); a crash leaves the journal for {@link recover}, which rolls back `staging` and
 * `committing` transactions and finishes `committed` ones, and never touches a target whose bytes
 * match neither the recorded before nor after hash (`RECOVERY_CONFLICT`).
 * Residual race (documented, as in weavatrix-worktree): a concurrent writer can still change a target
 * between the final re-check and its rename.
 *
 * Implements weavatrix.edit-plan.v1 "File entry" (the transaction consumer's hash comparison) and
 * "Path rules" (real-path containment and link checks).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  rmdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  constants,
  type BigIntStats,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { compareUtf8, decodeUtf8Strict, isHex64 } from '../util/bytes.js';
import { fsyncDirectory, writeFileAtomic } from '../util/atomic.js';
import { GcError, ioError, ExitCode } from '../util/errors.js';
import { applyEdits, type AppliedChange } from './apply.js';
import { editError } from './errors.js';
import { applyLimits, type ApplyLimits, type PlanLimits } from './limits.js';
import type { EditPlan } from './model.js';
import { pathProblem, portablePathKey } from './path.js';
import { validateEditPlan } from './validate.js';

/** Directory (under the root) holding the journal. Plan paths may not start with it. */
export const CONTROL_DIRECTORY = '.gcpatch';
/** File name of the journal inside {@link CONTROL_DIRECTORY}. */
export const JOURNAL_FILE = 'editplan-journal.json';
/** `format` member of the journal. */
export const JOURNAL_FORMAT = 'gcpatch.editplan-journal.v1';

/**
 * Thrown by a `faultAt` hook to simulate the process dying at that step: the transaction propagates
 * it at once, without rolling back or cleaning up (any other thrown value is handled like an I/O
 * failure: rolled back in-process).
 */
export class SimulatedCrash extends Error {
  constructor(readonly step: string) {
    super(`simulated crash at ${step}`);
    this.name = 'SimulatedCrash';
  }
}

/** Test hooks: `faultAt(step)` is called before each visible step and may throw. */
export interface FaultHooks {
  /**
   * Steps of `applyPlanToRoot`: `prepare`, `journal:create`, `stage:<i>`, `backup:<i>`, `recheck`,
   * `journal:committing`, `commit:<i>`, `journal:committed`, `cleanup:<i>`, `journal:remove`, and
   * during an in-process rollback `rollback:<i>`, `rollback:journal:remove`; of `recover`:
   * `recover:<i>`, `recover:cleanup:<i>`, `recover:journal:remove`. `<i>` is the index in commit
   * order (paths in code-point order).
   */
  faultAt?: (step: string) => void;
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
interface JournalFile {
  path: string;
  stage: string;
  backup: string;
  beforeSha256: string;
  afterSha256: string;
}

type JournalState = 'staging' | 'committing' | 'committed';

interface Journal {
  format: typeof JOURNAL_FORMAT;
  txid: string;
  state: JournalState;
  files: JournalFile[];
}

/** SHA-256 of `bytes` as 64 lowercase hex characters. */
export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** Path of the journal for `root`. */
export function journalPath(root: string): string {
  return join(root, CONTROL_DIRECTORY, JOURNAL_FILE);
}

function tempName(path: string, kind: 'stage' | 'backup', txid: string): string {
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.gcpatch-${kind}-${txid}`;
}

function toNative(root: string, path: string): string {
  return join(root, ...path.split('/'));
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A resolved target: its absolute path (parents resolved) and its stats. */
interface Target {
  absolute: string;
  stats: BigIntStats;
}

/**
 * Resolves a plan path under `rootReal` with real-path containment.
 * @throws `SOURCE_MISSING`, `PATH_ESCAPES_ROOT`, `TARGET_NOT_REGULAR`, or `io/<errno>`.
 */
function resolveTarget(rootReal: string, path: string, fileIndex: number): Target {
  const segments = path.split('/');
  const indices = { fileIndex };
  const where = { location: { file: path } };
  let dir = rootReal;
  for (const segment of segments.slice(0, -1)) {
    const next = join(dir, segment);
    let stats;
    try {
      stats = lstatSync(next);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') {
        throw editError('SOURCE_MISSING', `directory ${segment} does not exist`, indices, where);
      }
      throw ioError(error, next, 'inspect');
    }
    if (stats.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(next);
      } catch (error) {
        throw editError('SOURCE_MISSING', `${segment} is a dangling symbolic link`, indices, {
          ...where,
          cause: error,
        });
      }
      if (!isInside(rootReal, real)) {
        throw editError('PATH_ESCAPES_ROOT', `${segment} is a symbolic link leading outside the root`, indices, where);
      }
      if (!statSync(real).isDirectory()) {
        throw editError('SOURCE_MISSING', `${segment} is not a directory`, indices, where);
      }
      dir = real;
    } else if (stats.isDirectory()) {
      dir = next;
    } else {
      throw editError('SOURCE_MISSING', `${segment} is not a directory`, indices, where);
    }
  }
  const relative = dir === rootReal ? '' : dir.slice(rootReal.length + 1);
  const first = portablePathKey(relative.split(sep)[0] ?? '');
  if (first === '.git' || first === CONTROL_DIRECTORY) {
    throw editError('PATH_ESCAPES_ROOT', `the path resolves into the ${first} directory`, indices, where);
  }
  const absolute = join(dir, segments[segments.length - 1]!);
  let stats: BigIntStats;
  try {
    stats = lstatSync(absolute, { bigint: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') {
      throw editError('SOURCE_MISSING', 'the file does not exist', indices, where);
    }
    throw ioError(error, absolute, 'inspect');
  }
  if (stats.isSymbolicLink()) {
    throw editError('TARGET_NOT_REGULAR', 'the file is a symbolic link; edit its target instead', indices, where);
  }
  if (!stats.isFile()) throw editError('TARGET_NOT_REGULAR', 'not a regular file', indices, where);
  return { absolute, stats };
}

function readBytes(absolute: string): Buffer {
  try {
    return readFileSync(absolute);
  } catch (error) {
    throw ioError(error, absolute, 'read');
  }
}

/** Writes `bytes` to a new file (exclusive create) with `mode`, fsyncs and closes it. */
function writeNewFile(absolute: string, bytes: Uint8Array, mode: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    fchmodSync(fd, mode);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    throw ioError(error, absolute, 'write');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeIfPresent(absolute: string): void {
  try {
    unlinkSync(absolute);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw ioError(error, absolute, 'remove');
  }
}

function exists(absolute: string): boolean {
  try {
    lstatSync(absolute);
    return true;
  } catch {
    return false;
  }
}

function journalBody(journal: Journal): string {
  return JSON.stringify({ format: journal.format, txid: journal.txid, state: journal.state, files: journal.files });
}

/** The journal file's text: its members plus `checksum`, the SHA-256 of the compact body. */
function journalText(journal: Journal): string {
  const checksum = sha256Hex(Buffer.from(journalBody(journal), 'utf8'));
  const { format, txid, state, files } = journal;
  return JSON.stringify({ format, txid, state, files, checksum }, null, 2) + '\n';
}

/** Creates the journal atomically and exclusively. @throws `RECOVERY_REQUIRED` when one exists. */
function createJournal(rootReal: string, journal: Journal): void {
  const control = join(rootReal, CONTROL_DIRECTORY);
  try {
    mkdirSync(control, { recursive: true });
  } catch (error) {
    throw ioError(error, control, 'create');
  }
  const target = journalPath(rootReal);
  const temp = join(control, `.${JOURNAL_FILE}.new-${journal.txid}`);
  writeNewFile(temp, Buffer.from(journalText(journal), 'utf8'), 0o644);
  try {
    linkSync(temp, target);
  } catch (error) {
    removeIfPresent(temp);
    if (errnoOf(error) === 'EEXIST') throw recoveryRequired(rootReal);
    throw ioError(error, target, 'create');
  }
  removeIfPresent(temp);
  fsyncDirectory(control);
}

function recoveryRequired(rootReal: string): GcError {
  return editError(
    'RECOVERY_REQUIRED',
    `an edit-plan journal exists at ${journalPath(rootReal)}: another transaction is running or was interrupted; ` +
      `when none is running, run \`gcpatch edit-plan recover --root ${rootReal}\``,
  );
}

function removeJournal(rootReal: string): void {
  removeIfPresent(journalPath(rootReal));
  const control = join(rootReal, CONTROL_DIRECTORY);
  fsyncDirectory(control);
  // Leave no empty control directory behind; one that holds anything else stays.
  try {
    rmdirSync(control);
  } catch {
    /* not empty, or already gone */
  }
}

function realRoot(root: string): string {
  let real: string;
  try {
    real = realpathSync(root);
  } catch (error) {
    throw ioError(error, root, 'open the root');
  }
  if (!statSync(real).isDirectory()) {
    throw new GcError('io/enotdir', `the root ${root} is not a directory`, { exitCode: ExitCode.io, location: { file: root } });
  }
  return real;
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
  const fault = options.faultAt ?? (() => {});
  validateEditPlan(plan, options.planLimits);
  const limits = applyLimits(options.applyLimits);
  plan.files.forEach((file, fileIndex) => {
    if (portablePathKey(file.path).split('/')[0] === CONTROL_DIRECTORY) {
      throw editError('INVALID_PATH', `the ${CONTROL_DIRECTORY} directory holds gcpatch's journal`, { fileIndex }, { location: { file: file.path } });
    }
  });
  const rootReal = realRoot(root);
  if (exists(journalPath(rootReal))) throw recoveryRequired(rootReal);

  const prepared = prepareFiles(plan, rootReal, limits, options);
  const result: TransactionResult = {
    root: rootReal,
    dryRun: options.dryRun === true,
    files: prepared.map((p) => p.outcome),
    cleanupPending: false,
  };
  if (options.dryRun) return result;
  fault('prepare');

  const changed = prepared
    .filter((p) => p.outcome.changed)
    .sort((a, b) => compareUtf8(a.outcome.path, b.outcome.path));
  if (changed.length === 0) return result;
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
  createJournal(rootReal, journal);

  let committed = 0;
  try {
    const directories = new Set<string>();
    changed.forEach((p, i) => {
      const entry = journal.files[i]!;
      fault(`stage:${i}`);
      writeNewFile(toNative(rootReal, entry.stage), p.outputBytes, p.mode);
      fault(`backup:${i}`);
      writeNewFile(toNative(rootReal, entry.backup), p.sourceBytes, p.mode);
      directories.add(dirname(p.target.absolute));
    });
    for (const dir of directories) fsyncDirectory(dir);

    fault('recheck');
    changed.forEach((p) => recheck(p, rootReal));

    fault('journal:committing');
    journal.state = 'committing';
    writeFileAtomic(journalPath(rootReal), journalText(journal));
    changed.forEach((p, i) => {
      fault(`commit:${i}`);
      try {
        renameSync(toNative(rootReal, journal.files[i]!.stage), p.target.absolute);
      } catch (error) {
        throw ioError(error, p.outcome.path, 'replace');
      }
      committed = i + 1;
      fsyncDirectory(dirname(p.target.absolute));
    });
    fault('journal:committed');
    journal.state = 'committed';
    writeFileAtomic(journalPath(rootReal), journalText(journal));
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    rollBackInProcess(rootReal, journal, changed, committed, fault, error);
    throw error;
  }

  try {
    journal.files.forEach((entry, i) => {
      fault(`cleanup:${i}`);
      removeIfPresent(toNative(rootReal, entry.backup));
    });
    fault('journal:remove');
    removeJournal(rootReal);
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    result.cleanupPending = true;
  }
  return result;
}

/** Step 1: containment, identity, hash, UTF-8 and in-memory application for every file. */
function prepareFiles(
  plan: EditPlan,
  rootReal: string,
  limits: ApplyLimits,
  options: TransactionOptions,
): Prepared[] {
  const identities = new Map<string, number>();
  return plan.files.map((file, fileIndex) => {
    const indices = { fileIndex };
    const where = { location: { file: file.path } };
    const target = resolveTarget(rootReal, file.path, fileIndex);
    const identity = `${target.stats.dev}:${target.stats.ino}`;
    const earlier = identities.get(identity);
    if (earlier !== undefined) {
      throw editError(
        'PATH_ALIAS',
        `the same file as ${plan.files[earlier]!.path} (files[${earlier}])`,
        indices,
        { ...where, details: { relatedFileIndex: earlier } },
      );
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
function rollBackInProcess(
  rootReal: string,
  journal: Journal,
  changed: Prepared[],
  committed: number,
  fault: (step: string) => void,
  original: unknown,
): void {
  try {
    for (let i = committed - 1; i >= 0; i--) {
      fault(`rollback:${i}`);
      const entry = journal.files[i]!;
      try {
        renameSync(toNative(rootReal, entry.backup), changed[i]!.target.absolute);
      } catch (error) {
        throw ioError(error, entry.path, 'restore');
      }
      fsyncDirectory(dirname(changed[i]!.target.absolute));
    }
    for (const entry of journal.files) {
      removeIfPresent(toNative(rootReal, entry.stage));
      removeIfPresent(toNative(rootReal, entry.backup));
    }
    fault('rollback:journal:remove');
    removeJournal(rootReal);
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
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw ioError(error, path, 'read');
  }
  const invalid = (why: string) => editError('JOURNAL_INVALID', `${why}; inspect it by hand`, {}, { location: { file: path } });
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalid('not JSON');
  }
  const journal = raw as unknown as Journal & { checksum?: unknown };
  if (journal.format !== JOURNAL_FORMAT) throw invalid(`format is not ${JOURNAL_FORMAT}`);
  if (typeof journal.txid !== 'string' || !/^[0-9a-f]{16}$/.test(journal.txid)) throw invalid('bad txid');
  if (!['staging', 'committing', 'committed'].includes(journal.state)) throw invalid('bad state');
  if (!Array.isArray(journal.files)) throw invalid('files is not an array');
  if (journal.checksum !== sha256Hex(Buffer.from(journalBody(journal), 'utf8'))) throw invalid('checksum mismatch');
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
 * @param root the repository root.
 * @param hooks `faultAt` test hook.
 * @returns what was done.
 * @throws GcError `RECOVERY_CONFLICT`, `JOURNAL_INVALID`, containment codes, `io/<errno>`.
 */
export function recover(root: string, hooks: FaultHooks = {}): RecoveryResult {
  const fault = hooks.faultAt ?? (() => {});
  const rootReal = realRoot(root);
  cleanOrphanJournalTemps(rootReal);
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
    for (let i = plans.length - 1; i >= 0; i--) {
      const { entry, target, action } = plans[i]!;
      if (action === 'restored') {
        fault(`recover:${i}`);
        try {
          renameSync(toNative(rootReal, entry.backup), target);
        } catch (error) {
          throw ioError(error, entry.path, 'restore');
        }
        fsyncDirectory(dirname(target));
      }
    }
    plans.forEach(({ entry, action }) => files.push({ path: entry.path, action }));
  }
  journal.files.forEach((entry, i) => {
    fault(`recover:cleanup:${i}`);
    removeIfPresent(toNative(rootReal, entry.stage));
    removeIfPresent(toNative(rootReal, entry.backup));
  });
  fault('recover:journal:remove');
  removeJournal(rootReal);
  return { action: journal.state === 'committed' ? 'completed' : 'rolled-back', files };
}

/** Deletes journal temp files left by a crash while the journal was being created or rewritten. */
function cleanOrphanJournalTemps(rootReal: string): void {
  const control = join(rootReal, CONTROL_DIRECTORY);
  let names: string[];
  try {
    names = readdirSync(control);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(`.${JOURNAL_FILE}.new-`) || name.startsWith(`.${JOURNAL_FILE}.gcpatch-tmp-`)) {
      removeIfPresent(join(control, name));
    }
  }
}
