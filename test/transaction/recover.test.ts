/**
 * The one recovery (`src/transaction/recover.ts`) across both transaction kinds: a kill at every
 * step of a small package transaction and of a small edit-plan apply into one package directory,
 * recovered by `gcpatch recover`'s entry point (either kind, one implementation); journals in
 * every state as earlier gcpatch versions wrote them; damaged journals of either kind; and the
 * nested locks — a transaction rooted below a package and a package transaction exclude each other
 * whichever holds its lock first, and an unrelated path or no other lock lets both proceed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlanToRoot, journalPath, recover } from '../../src/editplan/index.js';
import { SimulatedCrash } from '../../src/transaction/crash-points.js';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { recoverPackageCommand, withPackageLock } from '../../src/patch/guard.js';
import { PackageTransaction, applyJournalPath, setDurableWritesForTesting, type PlannedWrite } from '../../src/patch/transaction.js';
import { sha256Hex } from '../../src/util/sha256.js';
import { edit, file, plan } from '../editplan/helpers.js';
import { copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../patch/helpers.js';
import { crashAt } from './crash-at.js';
import { legacyJournal, legacyPackage } from './legacy.js';

// A SimulatedCrash is a process death: the kernel keeps every write, so fsync changes nothing here.
setDurableWritesForTesting(false);

/** A package with a subdirectory `sub/` holding `notes.txt` (a root an edit plan may write into). */
function packageWithSub(): string {
  const pkg = copyPackage();
  mkdirSync(join(pkg, 'sub'));
  writeFileSync(join(pkg, 'sub', 'notes.txt'), 'old notes\n');
  return pkg;
}

/** An edit plan rewriting `notes.txt` (relative to its root `pkg/sub`, or `sub/notes.txt` from `pkg`). */
function notesPlan(pkg: string, path = 'notes.txt') {
  return plan([file(path, [edit(1, 0, 1, 3, 'old', 'new')], sha256Hex(readFileSync(join(pkg, 'sub', 'notes.txt'))))]);
}

/** The writes of a small package transaction: a rewrite, a file in new directories, a removal. */
function packageWrites(pkg: string): PlannedWrite[] {
  return [
    { path: 'app.gc', bytes: Buffer.concat([readFileSync(join(pkg, 'app.gc')), Buffer.from('\n')]) },
    { path: 'new/deep/added.gc', bytes: Buffer.from('(def added 1)\n') },
    { path: 'legacy.gc', bytes: undefined },
  ];
}

const KINDS = {
  package: (pkg: string, fault: (s: string) => void) => {
    const tx = PackageTransaction.begin(pkg, 'apply', fault);
    tx.write(packageWrites(pkg));
    tx.commit();
  },
  'edit plan': (pkg: string, fault: (s: string) => void) => void applyPlanToRoot(notesPlan(pkg, 'sub/notes.txt'), pkg, { faultAt: fault }),
};

describe.each(Object.entries(KINDS))('a kill at every step of a %s transaction, then gcpatch recover', (kind, run) => {
  const reference = packageWithSub();
  const oldTree = snapshotTree(reference);
  const steps: string[] = [];
  run(reference, (s) => void steps.push(s));
  const newTree = snapshotTree(reference);
  const commitAt = steps.indexOf('journal:committed');
  const journalOf = kind === 'package' ? applyJournalPath : journalPath;

  it('the reference run changes the tree and has a commit point', () => {
    expect(newTree).not.toEqual(oldTree);
    expect(commitAt).toBeGreaterThan(0);
  });

  for (const [i, step] of steps.entries()) {
    it(`kill at ${step} → all-${i <= commitAt ? 'old' : 'new'}, nothing left`, () => {
      const pkg = packageWithSub();
      crashAt(step, (fault) => run(pkg, fault));
      const journaled = existsSync(journalOf(pkg));
      const r = recoverPackageCommand(pkg);
      expect(r.action).toBe(!journaled ? 'none' : i <= commitAt ? 'rolled-back' : 'completed');
      // A journal's recovery names the interrupted command.
      const command = kind === 'package' ? 'apply' : 'edit-plan apply';
      expect(journaled ? r.command : command).toBe(command);
      expect(snapshotTree(pkg)).toEqual(i <= commitAt ? oldTree : newTree);
      expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
    });
  }
});

describe('journals in every state as earlier gcpatch versions left them', () => {
  it('an apply journal past its commit point (the created file in place, its stage renamed) is completed', () => {
    const { pkg, txid, before, after } = legacyPackage('0123456789abcdef');
    mkdirSync(join(pkg, 'new'));
    writeFileSync(join(pkg, 'new', 'x.gc'), '(def x 1)\n');
    writeFileSync(
      applyJournalPath(pkg),
      legacyJournal({
        format: 'gcpatch.apply-journal.v1',
        txid,
        command: 'pack',
        state: 'committed',
        files: [
          { path: 'app.gc', before, after, stage: `.app.gc.gcpatch-stage-${txid}`, backup: `.app.gc.gcpatch-backup-${txid}`, dirs: [] },
          { path: 'new/x.gc', before: null, after: sha256Hex('(def x 1)\n'), stage: `new/.x.gc.gcpatch-stage-${txid}`, backup: null, dirs: ['new'] },
        ],
      }),
    );
    const changed = snapshotTree(pkg);
    expect(recoverPackageCommand(pkg)).toMatchObject({
      action: 'completed',
      txid,
      command: 'pack',
      files: [
        { path: 'app.gc', action: 'kept-new' },
        { path: 'new/x.gc', action: 'kept-new' },
      ],
    });
    const tree = snapshotTree(pkg);
    expect(Object.keys(tree).filter((p) => /gcpatch-|^\.gcpatch/.test(p))).toEqual([]);
    expect(tree['app.gc']).toBe(changed['app.gc']);
    expect(tree['new/x.gc']).toBe(changed['new/x.gc']);
  });

  it('an edit-plan journal in state staging (no target touched) is rolled back: its temps go, nothing is checked', () => {
    const { pkg, txid, before, after, pristine } = legacyPackage('fedcba9876543210');
    writeFileSync(join(pkg, 'app.gc'), readFileSync(join(pkg, `.app.gc.gcpatch-backup-${txid}`))); // not yet renamed
    writeFileSync(join(pkg, `.app.gc.gcpatch-stage-${txid}`), '; edited\n');
    writeFileSync(
      journalPath(pkg),
      legacyJournal({
        format: 'gcpatch.editplan-journal.v1',
        txid,
        state: 'staging',
        files: [{ path: 'app.gc', stage: `.app.gc.gcpatch-stage-${txid}`, backup: `.app.gc.gcpatch-backup-${txid}`, beforeSha256: before, afterSha256: after }],
      }),
    );
    expect(recoverPackageCommand(pkg)).toMatchObject({ action: 'rolled-back', command: 'edit-plan apply', files: [{ path: 'app.gc', action: 'unchanged' }] });
    expect(snapshotTree(pkg)).toEqual(pristine);
  });

  it('a damaged journal of either kind is refused with its own code and nothing changes', () => {
    for (const [journalOf, code] of [
      [applyJournalPath, 'patch/journal-invalid'],
      [journalPath, 'JOURNAL_INVALID'],
    ] as const) {
      for (const text of ['null\n', '{"format":"gcpatch.apply-journal.v1"}\n', legacyJournal({ format: 'gcpatch.editplan-journal.v1', txid: 'x' })]) {
        const pkg = copyPackage();
        mkdirSync(join(pkg, '.gcpatch'));
        writeFileSync(journalOf(pkg), text);
        const before = snapshotTree(pkg);
        const e = errorOf(() => recoverPackageCommand(pkg));
        expect([e.code, e.exitCode]).toEqual([code, 70]);
        expect(snapshotTree(pkg)).toEqual(before);
      }
    }
  });
});

/** The error `fn` throws, with the lock file and owner command it names. */
function lockedBy(fn: () => unknown): { code: string; lockFile: string; command: string } {
  const e = errorOf(fn);
  const details = e.details as { lockFile: string; owner: { command: string } };
  return { code: e.code, lockFile: details.lockFile, command: details.owner.command };
}

describe('nested roots: a package transaction and an edit-plan apply below it exclude each other', () => {
  it('an edit-plan apply holding pkg/sub: a package transaction at pkg writing under sub/ is refused, one writing elsewhere proceeds', () => {
    const pkg = packageWithSub();
    let refusal: ReturnType<typeof lockedBy> | undefined;
    let inside: Record<string, string> = {};
    applyPlanToRoot(notesPlan(pkg), join(pkg, 'sub'), {
      faultAt: (step) => {
        if (step !== 'recheck') return; // the edit plan holds its lock and has staged its files
        withPackageLock(pkg, { command: 'apply' }, () => {
          const tx = PackageTransaction.begin(pkg, 'apply');
          inside = snapshotTree(pkg);
          refusal = lockedBy(() => tx.write([{ path: 'sub/x.gc', bytes: Buffer.from('(def x 1)\n') }]));
          expect(snapshotTree(pkg)).toEqual(inside); // nothing of the batch was written
          tx.write([{ path: 'other.gc', bytes: Buffer.from('(def other 1)\n') }]);
          tx.commit();
        });
      },
    });
    expect(refusal).toEqual({ code: 'patch/package-locked', lockFile: join(pkg, 'sub', '.gcpatch', 'package.lock'), command: 'edit-plan apply' });
    expect(readFileSync(join(pkg, 'sub', 'notes.txt'), 'utf8')).toBe('new notes\n');
    expect(readFileSync(join(pkg, 'other.gc'), 'utf8')).toBe('(def other 1)\n');
    expect(existsSync(join(pkg, 'sub', 'x.gc'))).toBe(false);
    expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
  });

  it('gcpatch apply holding pkg: an edit-plan apply into pkg/sub is refused', () => {
    const pkg = packageWithSub();
    let refusal: ReturnType<typeof lockedBy> | undefined;
    applyPatch({
      pkg,
      patch: readPatchFile(DEMO_PATCH),
      faults: (step) => {
        if (step === 'journal:committed') refusal = lockedBy(() => applyPlanToRoot(notesPlan(pkg), join(pkg, 'sub')));
      },
    });
    expect(refusal).toEqual({ code: 'patch/package-locked', lockFile: join(pkg, '.gcpatch', 'package.lock'), command: 'apply' });
    expect(readFileSync(join(pkg, 'sub', 'notes.txt'), 'utf8')).toBe('old notes\n');
  });

  it('an edit-plan apply into pkg/sub that died: a package transaction at pkg writing under sub/ is refused until edit-plan recover, one writing elsewhere proceeds', () => {
    const pkg = packageWithSub();
    expect(() =>
      applyPlanToRoot(notesPlan(pkg), join(pkg, 'sub'), {
        faultAt: (step) => {
          if (step === 'recheck') throw new SimulatedCrash(step); // journal written, files staged, then the process dies
        },
      }),
    ).toThrow(SimulatedCrash);
    expect(existsSync(journalPath(join(pkg, 'sub')))).toBe(true);
    withPackageLock(pkg, { command: 'apply' }, () => {
      const tx = PackageTransaction.begin(pkg, 'apply');
      const before = snapshotTree(pkg);
      const e = errorOf(() => tx.write([{ path: 'sub/x.gc', bytes: Buffer.from('(def x 1)\n') }]));
      expect(e.code).toBe('patch/nested-recovery-required');
      expect(e.exitCode).toBe(70);
      expect(e.message).toContain(`gcpatch edit-plan recover --root ${join(pkg, 'sub')}`);
      expect(snapshotTree(pkg)).toEqual(before); // nothing of the batch was written
      tx.write([{ path: 'other.gc', bytes: Buffer.from('(def other 1)\n') }]);
      tx.commit();
    });
    expect(existsSync(join(pkg, 'sub', 'x.gc'))).toBe(false);
    expect(recover(join(pkg, 'sub')).action).toBe('rolled-back');
    expect(readFileSync(join(pkg, 'sub', 'notes.txt'), 'utf8')).toBe('old notes\n');
    withPackageLock(pkg, { command: 'apply' }, () => {
      const tx = PackageTransaction.begin(pkg, 'apply');
      tx.write([{ path: 'sub/x.gc', bytes: Buffer.from('(def x 1)\n') }]);
      tx.commit();
    });
    expect(readFileSync(join(pkg, 'sub', 'x.gc'), 'utf8')).toBe('(def x 1)\n');
  });

  it('control: with no other lock held, both proceed', () => {
    const pkg = packageWithSub();
    withPackageLock(pkg, { command: 'apply' }, () => {
      const tx = PackageTransaction.begin(pkg, 'apply');
      tx.write([{ path: 'sub/x.gc', bytes: Buffer.from('(def x 1)\n') }]);
      tx.commit();
    });
    expect(readFileSync(join(pkg, 'sub', 'x.gc'), 'utf8')).toBe('(def x 1)\n');
    applyPlanToRoot(notesPlan(pkg), join(pkg, 'sub'));
    expect(readFileSync(join(pkg, 'sub', 'notes.txt'), 'utf8')).toBe('new notes\n');
  });
});
