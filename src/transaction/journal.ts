/**
 * The transaction journals on disk: where they live (`<dir>/.gcpatch/`), their checksummed JSON
 * text, the names of stage and backup files, and reading, writing and removing them.
 *
 * Two kinds share one envelope — a JSON object of members followed by `checksum`, the SHA-256 of
 * the compact JSON of the members in order — and one control directory:
 * - `apply-journal.json` (`gcpatch.apply-journal.v1`): `apply`, `refactor apply` and `pack`
 *   (`src/patch/transaction.ts`), states `open` and `committed`;
 * - `editplan-journal.json` (`gcpatch.editplan-journal.v1`): edit-plan apply
 *   (`src/editplan/transaction.ts`), states `staging`, `committing` and `committed`.
 * Both formats are exactly those earlier gcpatch versions wrote, so a journal left by a crash of an
 * older gcpatch is recovered by this one; `recover.ts` reads and checks both.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import { ioError } from '../util/errors.js';
import { sha256Hex } from '../util/sha256.js';
import { errnoOf, removeIfPresent, SyncBatch, syncDirectories } from './durable.js';

/** Directory (inside a package or edit-plan root) holding the lock and the journals. */
export const CONTROL_DIRECTORY = '.gcpatch';
/** File name of the apply journal (`apply`, `refactor apply`, `pack`) inside {@link CONTROL_DIRECTORY}. */
export const APPLY_JOURNAL_FILE = 'apply-journal.json';
/** `format` member of the apply journal. */
export const APPLY_JOURNAL_FORMAT = 'gcpatch.apply-journal.v1';
/** File name of the edit-plan journal inside {@link CONTROL_DIRECTORY}. */
export const EDITPLAN_JOURNAL_FILE = 'editplan-journal.json';
/** `format` member of the edit-plan journal. */
export const EDITPLAN_JOURNAL_FORMAT = 'gcpatch.editplan-journal.v1';

/** The journal kinds, by file name. */
export const JOURNAL_FILES = [APPLY_JOURNAL_FILE, EDITPLAN_JOURNAL_FILE] as const;
/** One of {@link JOURNAL_FILES}. */
export type JournalFile = (typeof JOURNAL_FILES)[number];

/** Path of the journal `file` of the directory `root`. */
export function journalPathOf(root: string, file: JournalFile): string {
  return join(root, CONTROL_DIRECTORY, file);
}

/** The absolute path of the `/`-separated `path` relative to `root`. */
export function nativePath(root: string, path: string): string {
  return join(root, ...path.split('/'));
}

/**
 * Name of the stage (new bytes) or backup (old bytes) file of `path` in transaction `txid`: next
 * to the target, `.<name>.gcpatch-<kind>-<txid>` (so a rename onto the target stays in its directory).
 */
export function tempName(path: string, kind: 'stage' | 'backup', txid: string): string {
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.gcpatch-${kind}-${txid}`;
}

/** True when `text` is a transaction id as the journals record it (16 lowercase hex digits). */
export function isTxid(text: unknown): text is string {
  return typeof text === 'string' && /^[0-9a-f]{16}$/.test(text);
}

/** The checksum of a journal's members (in the order given): SHA-256 of their compact JSON. */
export function journalChecksum(members: object): string {
  return sha256Hex(Buffer.from(JSON.stringify(members), 'utf8'));
}

/** The journal file's text: `members` plus `checksum`, two-space indented, newline-terminated. */
export function journalText(members: object): string {
  return JSON.stringify({ ...members, checksum: journalChecksum(members) }, null, 2) + '\n';
}

/** The journal's text, or undefined when there is none. @throws GcError `io/<errno>` (exit 70). */
export function readJournalText(root: string, file: JournalFile): string | undefined {
  const path = journalPathOf(root, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw ioError(error, path, 'read');
  }
}

/** The journal files present under `root` (either kind), in {@link JOURNAL_FILES} order. */
export function pendingJournals(root: string): JournalFile[] {
  let names: string[];
  try {
    names = readdirSync(join(root, CONTROL_DIRECTORY));
  } catch {
    return [];
  }
  return JOURNAL_FILES.filter((f) => names.includes(f));
}

function makeControlDirectory(root: string): string {
  const control = join(root, CONTROL_DIRECTORY);
  try {
    mkdirSync(control, { recursive: true });
  } catch (error) {
    throw ioError(error, control, 'create');
  }
  return control;
}

/** Writes (or atomically replaces) the journal `file` of `root` with `text`, durably. */
export function saveJournal(root: string, file: JournalFile, text: string): void {
  makeControlDirectory(root);
  writeFileAtomic(journalPathOf(root, file), text);
}

/**
 * Creates the journal `file` of `root` durably and only if it does not exist: written to a temp
 * file `.<file>.new-<txid>`, synced, then hard-linked into place.
 * @returns false when a journal already exists (nothing was written).
 * @throws GcError `io/<errno>` (exit 70).
 */
export function createJournal(root: string, file: JournalFile, text: string, txid: string): boolean {
  const control = makeControlDirectory(root);
  const target = journalPathOf(root, file);
  const temp = join(control, `.${file}.new-${txid}`);
  const batch = new SyncBatch();
  try {
    batch.write(temp, Buffer.from(text, 'utf8'), 0o644);
    batch.flush();
  } finally {
    batch.close();
  }
  try {
    linkSync(temp, target);
  } catch (error) {
    removeIfPresent(temp);
    if (errnoOf(error) === 'EEXIST') return false;
    throw ioError(error, target, 'create');
  }
  removeIfPresent(temp);
  syncDirectories([control]);
  return true;
}

/** Deletes the journal `file` of `root` durably, then the control directory if it is now empty. */
export function removeJournal(root: string, file: JournalFile): void {
  removeIfPresent(journalPathOf(root, file));
  const control = join(root, CONTROL_DIRECTORY);
  syncDirectories([control]);
  try {
    rmdirSync(control); // leave no empty control directory; one holding the lock or anything else stays
  } catch {
    /* not empty, or gone */
  }
}

/** Deletes the temp files a crash left while the journal `file` was being created or rewritten. */
export function removeOrphanJournalTemps(root: string, file: JournalFile): void {
  const control = join(root, CONTROL_DIRECTORY);
  let names: string[];
  try {
    names = readdirSync(control);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(`.${file}.new-`) || name.startsWith(`.${file}.gcpatch-tmp-`)) removeIfPresent(join(control, name));
  }
}
