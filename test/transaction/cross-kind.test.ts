/**
 * The one transaction core across its users: `gcpatch apply` (a package transaction) and an
 * edit-plan apply into the same directory exclude each other through the one lock (one is refused
 * at once, or waits with a lock wait), a lock of an enclosing directory covers the tree below it,
 * and an interrupted transaction of either kind is recovered by `gcpatch recover` — in-process
 * and with the built CLI.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlanToRoot, journalPath } from '../../src/editplan/index.js';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { recoverPackageCommand } from '../../src/patch/guard.js';
import { applyJournalPath } from '../../src/patch/transaction.js';
import { acquirePackageLock } from '../../src/transaction/lock.js';
import { sha256Hex } from '../../src/util/sha256.js';
import { edit, file, plan } from '../editplan/helpers.js';
import { BIN, gcpatch } from '../helpers/cli.js';
import { copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../patch/helpers.js';
import { crashAt } from './crash-at.js';
import { legacyJournal, legacyPackage } from './legacy.js';

const patch = readPatchFile(DEMO_PATCH);

/** An edit plan that prepends a comment line to `app.gc` of the package `pkg`. */
function commentPlan(pkg: string) {
  const bytes = readFileSync(join(pkg, 'app.gc'));
  return plan([file('app.gc', [edit(1, 0, 1, 0, '', '; edited by a plan\n')], sha256Hex(bytes))]);
}

/** Resolves when a lock temp file `package.lock.new-…` appears in `control` (someone tries the lock). */
function lockAttempt(control: string): { seen: Promise<void>; close: () => void } {
  let watcher: FSWatcher | undefined;
  const seen = new Promise<void>((resolve) => {
    watcher = watch(control, (_event, name) => {
      if (String(name).startsWith('package.lock.new-')) resolve();
    });
  });
  return { seen, close: () => watcher?.close() };
}

describe('apply and edit-plan apply into one package directory (in-process)', () => {
  it('while the test holds the lock, both are refused with patch/package-locked and nothing changes', () => {
    const pkg = copyPackage();
    const lock = acquirePackageLock(pkg, { command: 'apply' });
    const before = snapshotTree(pkg); // the lock file included
    try {
      const a = errorOf(() => applyPatch({ pkg, patch }));
      expect([a.code, a.exitCode]).toEqual(['patch/package-locked', 70]);
      const e = errorOf(() => applyPlanToRoot(commentPlan(pkg), pkg));
      expect([e.code, e.exitCode]).toEqual(['patch/package-locked', 70]);
      expect((e.details as { owner: { command: string } }).owner.command).toBe('apply');
      expect(snapshotTree(pkg)).toEqual(before);
      // a dry run writes nothing and needs no lock
      expect(applyPlanToRoot(commentPlan(pkg), pkg, { dryRun: true }).files[0]!.changed).toBe(true);
    } finally {
      lock.release();
    }
    applyPlanToRoot(commentPlan(pkg), pkg);
    expect(readFileSync(join(pkg, 'app.gc'), 'utf8').startsWith('; edited by a plan\n')).toBe(true);
    expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
  });

  it('an edit-plan apply holding the lock (crashed at its commit) blocks apply; gcpatch recover undoes it', () => {
    const pkg = copyPackage();
    const before = snapshotTree(pkg);
    crashAt('commit:0', (faultAt) => applyPlanToRoot(commentPlan(pkg), pkg, { faultAt }));
    expect(existsSync(journalPath(pkg))).toBe(true);
    // the next package command recovers the edit-plan transaction first, then applies
    const r = recoverPackageCommand(pkg);
    expect(r).toMatchObject({ action: 'rolled-back', command: 'edit-plan apply', files: [{ path: 'app.gc', action: 'unchanged' }] });
    expect(snapshotTree(pkg)).toEqual(before);
    crashAt('journal:committed', (faultAt) => applyPlanToRoot(commentPlan(pkg), pkg, { faultAt }));
    expect(recoverPackageCommand(pkg)).toMatchObject({ action: 'rolled-back', files: [{ path: 'app.gc', action: 'restored' }] });
    expect(snapshotTree(pkg)).toEqual(before);
    applyPatch({ pkg, patch }); // the package is whole again
  });

  it('a crashed apply blocks edit-plan apply (RECOVERY_REQUIRED) until gcpatch recover rolls it back', () => {
    const pkg = copyPackage();
    const before = snapshotTree(pkg);
    crashAt('journal:committed', (faults) => applyPatch({ pkg, patch, faults }));
    expect(existsSync(applyJournalPath(pkg))).toBe(true);
    const e = errorOf(() => applyPlanToRoot(commentPlan(pkg), pkg));
    expect([e.code, e.exitCode]).toEqual(['RECOVERY_REQUIRED', 70]);
    expect(e.message).toContain('gcpatch recover --pkg');
    expect(recoverPackageCommand(pkg).action).toBe('rolled-back');
    expect(snapshotTree(pkg)).toEqual(before);
    applyPlanToRoot(commentPlan(pkg), pkg);
  });

  it('a lock covers the tree below it: a lock of an enclosing root refuses apply; a package lock refuses an edit plan into it', () => {
    const pkg = copyPackage();
    const root = dirname(pkg);
    const outer = acquirePackageLock(root, { command: 'edit-plan apply' });
    try {
      expect(errorOf(() => applyPatch({ pkg, patch })).code).toBe('patch/package-locked');
    } finally {
      outer.release();
    }
    const inner = acquirePackageLock(pkg, { command: 'apply' });
    try {
      const bytes = readFileSync(join(pkg, 'app.gc'));
      const p = plan([file('pkg/app.gc', [edit(1, 0, 1, 0, '', '; x\n')], sha256Hex(bytes))]);
      const e = errorOf(() => applyPlanToRoot(p, root));
      expect(e.code).toBe('patch/package-locked');
      expect((e.details as { lockFile: string }).lockFile).toBe(join(pkg, '.gcpatch', 'package.lock'));
    } finally {
      inner.release();
    }
  });
});

describe('journals as earlier gcpatch versions left them are recovered by gcpatch recover', () => {
  it('an apply journal (open: one module committed, its backup a copy) is rolled back', () => {
    const { pkg, txid, before: oldHash, after, pristine: before } = legacyPackage('0123456789abcdef');
    writeFileSync(join(pkg, `.legacy.gc.gcpatch-stage-${txid}`), '(def y 2)\n');
    writeFileSync(
      applyJournalPath(pkg),
      legacyJournal({
        format: 'gcpatch.apply-journal.v1',
        txid,
        command: 'apply',
        state: 'open',
        files: [
          { path: 'app.gc', before: oldHash, after, stage: `.app.gc.gcpatch-stage-${txid}`, backup: `.app.gc.gcpatch-backup-${txid}`, dirs: [] },
          {
            path: 'legacy.gc',
            before: sha256Hex(readFileSync(join(pkg, 'legacy.gc'))),
            after: sha256Hex('(def y 2)\n'),
            stage: `.legacy.gc.gcpatch-stage-${txid}`,
            backup: `.legacy.gc.gcpatch-backup-${txid}`,
            dirs: [],
          },
        ],
      }),
    );
    const r = gcpatch(['recover', '--pkg', pkg, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      action: 'rolled-back',
      txid,
      command: 'apply',
      files: [
        { path: 'app.gc', action: 'restored' },
        { path: 'legacy.gc', action: 'unchanged' },
      ],
    });
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it('an edit-plan journal (committing: the target renamed, its backup a copy) is rolled back', () => {
    const { pkg, txid, before: oldHash, after, pristine: before } = legacyPackage('fedcba9876543210', '; edited\n');
    writeFileSync(
      journalPath(pkg),
      legacyJournal({
        format: 'gcpatch.editplan-journal.v1',
        txid,
        state: 'committing',
        files: [
          { path: 'app.gc', stage: `.app.gc.gcpatch-stage-${txid}`, backup: `.app.gc.gcpatch-backup-${txid}`, beforeSha256: oldHash, afterSha256: after },
        ],
      }),
    );
    const r = gcpatch(['recover', '--pkg', pkg]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('restored  app.gc\nrolled back an interrupted edit-plan apply (1 of 1 files restored)\n');
    expect(snapshotTree(pkg)).toEqual(before);
  });
});

describe('the built CLI: gcpatch edit-plan apply against a held lock', () => {
  it('is refused at once; with --lock-wait it waits until the holder releases, then applies', async () => {
    const pkg = copyPackage();
    const planFile = join(dirname(pkg), 'plan.json');
    writeFileSync(planFile, JSON.stringify(commentPlan(pkg)));
    const lock = acquirePackageLock(pkg, { command: 'apply' });
    const before = snapshotTree(pkg); // the lock file included
    let released = false;
    try {
      const refused = gcpatch(['edit-plan', 'apply', planFile, '--root', pkg, '--json']);
      expect(refused.status).toBe(70);
      expect(JSON.parse(refused.stdout).error.code).toBe('patch/package-locked');
      expect(snapshotTree(pkg)).toEqual(before);
      const attempt = lockAttempt(join(pkg, '.gcpatch'));
      const child = spawn(process.execPath, [BIN, 'edit-plan', 'apply', planFile, '--root', pkg, '--lock-wait', '60000', '--json']);
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await attempt.seen; // it is waiting for the lock
      attempt.close();
      // its lock attempts come and go in .gcpatch/ while it waits: leave that directory out (not even listed)
      const files = (tree: Record<string, string>) => Object.entries(tree).filter(([p]) => !p.startsWith('.gcpatch/'));
      expect(files(snapshotTree(pkg, (p) => p === '.gcpatch'))).toEqual(files(before));
      lock.release();
      released = true;
      expect(await exit).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, files: [{ path: 'app.gc', changed: true }] });
    } finally {
      if (!released) lock.release();
    }
    expect(readFileSync(join(pkg, 'app.gc'), 'utf8').startsWith('; edited by a plan\n')).toBe(true);
  });

  it('gcpatch recover undoes an edit-plan apply killed at its commit, and the apply of a patch then succeeds', () => {
    const pkg = copyPackage();
    const before = snapshotTree(pkg);
    crashAt('commit:0', (faultAt) => applyPlanToRoot(commentPlan(pkg), pkg, { faultAt }));
    const r = gcpatch(['recover', '--pkg', pkg, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ action: 'rolled-back', command: 'edit-plan apply' });
    expect(snapshotTree(pkg)).toEqual(before);
    expect(gcpatch(['apply', '--patch', DEMO_PATCH, '--pkg', pkg]).status).toBe(0);
  });
});
