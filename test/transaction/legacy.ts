/** Test helper: journals and half-done trees as a crash of an earlier gcpatch version left them. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/util/sha256.js';
import { copyPackage, snapshotTree } from '../patch/helpers.js';

/** The checksummed journal text as every gcpatch version writes it (`src/transaction/journal.ts`). */
export function legacyJournal(members: Record<string, unknown>): string {
  return JSON.stringify({ ...members, checksum: sha256Hex(JSON.stringify(members)) }, null, 2) + '\n';
}

/**
 * A copy of the demo package whose `app.gc` a transaction `txid` rewrote to `edited`, its backup a
 * copy of the old bytes (as where links are unsupported), with the control directory made; the
 * caller writes the journal.
 * @returns the package, the SHA-256 of the old and new `app.gc`, and the tree before (`pristine`).
 */
export function legacyPackage(
  txid: string,
  edited = '(def x 1)\n',
): { pkg: string; txid: string; before: string; after: string; pristine: Record<string, string> } {
  const pkg = copyPackage();
  const pristine = snapshotTree(pkg);
  const old = readFileSync(join(pkg, 'app.gc'));
  writeFileSync(join(pkg, `.app.gc.gcpatch-backup-${txid}`), old);
  writeFileSync(join(pkg, 'app.gc'), edited);
  mkdirSync(join(pkg, '.gcpatch'));
  return { pkg, txid, before: sha256Hex(old), after: sha256Hex(edited), pristine };
}
