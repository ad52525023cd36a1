/**
 * Crash safety of apply: a simulated `kill -9` (SimulatedCrash) at every step of the journaled
 * transaction of a small apply — every kind of write step (journal open and extend, stage, backup,
 * rewrite, add in new directories, remove, the second batch, the commit point, clean-up) — then
 * the next command's recovery → the package is all-old or all-new, its pins match, and no temp
 * file, journal or lock is left behind; the same at a sample of each kind of step of a 300-module
 * apply, and of the real apply.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTerm } from '../../src/coreform/read.js';
import { applyPatch } from '../../src/patch/apply/apply.js';
import { recoverPendingTransaction } from '../../src/patch/guard.js';
import { PackageTransaction, applyJournalPath, setDurableWritesForTesting, type PlannedWrite } from '../../src/patch/transaction.js';
import { crashAt } from '../transaction/crash-at.js';
import { loadPackage, pinFindings, pinsVerified } from '../../src/workspace/package.js';
import { copyPackage, DEMO_PATCH, snapshotTree } from './helpers.js';
import { readPatchFile } from '../../src/patch/apply/apply.js';
import { bigPatchSource, fastTempBase, makeBigPackage } from './big-package.js';

// A SimulatedCrash is a process death: the kernel keeps every write, so fsync changes nothing here.
setDurableWritesForTesting(false);

/** Files left by an interrupted transaction or a non-atomic write. */
function leftovers(tree: Record<string, string>): string[] {
  return Object.keys(tree).filter((p) => /gcpatch-(stage|backup|tmp)|^\.gcpatch\//.test(p));
}

function pinsMatch(pkg: string): boolean {
  return pinsVerified(pinFindings(loadPackage(pkg)));
}

/** The first, middle and last step of each kind (the name before `:`) — a sample of `steps` in order. */
function samplePerKind(steps: readonly string[]): string[] {
  const byKind = new Map<string, number[]>();
  steps.forEach((s, i) => byKind.set(s.split(':')[0]!, [...(byKind.get(s.split(':')[0]!) ?? []), i]));
  const picked = new Set<number>();
  for (const indices of byKind.values()) for (const i of [indices[0]!, indices[indices.length >> 1]!, indices[indices.length - 1]!]) picked.add(i);
  return [...picked].sort((a, b) => a - b).map((i) => steps[i]!);
}

describe.each([
  { N: 3, sweep: 'every step' },
  { N: 300, sweep: 'a sample of each kind of step' },
])('a kill at $sweep of an $N-module apply, then the next command', ({ N, sweep }) => {
  const pristine = makeBigPackage(N, fastTempBase());
  const root = dirname(pristine);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const patch = readTerm(Buffer.from(bigPatchSource(N)));
  const oldTree = snapshotTree(pristine);
  const done = join(root, 'done');
  cpSync(pristine, done, { recursive: true });
  const applied = applyPatch({ pkg: done, patch });
  const newTree = snapshotTree(done);

  it('the reference trees: old and new both have matching pins and no leftovers', () => {
    expect(applied.changedPaths.length).toBe(N + 2);
    expect(pinsMatch(pristine)).toBe(true);
    expect(pinsMatch(done)).toBe(true);
    expect(leftovers(oldTree)).toEqual([]);
    expect(leftovers(newTree)).toEqual([]);
    expect(newTree['new/deep/added.gc']).toBeDefined();
    expect(newTree['extra.gc']).toBeUndefined();
  });

  // The planned writes of that apply, committed by the transaction on its own (the apply's
  // in-memory work takes seconds on a shared machine; the transaction is what writes).
  const paths = [...new Set([...Object.keys(oldTree), ...Object.keys(newTree)])].filter((p) => !p.endsWith('/') && p !== '.genesis/last_acceptance');
  const batch1: PlannedWrite[] = paths.map((p) => ({ path: p, bytes: newTree[p] === undefined ? undefined : Buffer.from(newTree[p]!, 'base64') }));
  const batch2: PlannedWrite[] = [{ path: '.genesis/last_acceptance', bytes: Buffer.from(newTree['.genesis/last_acceptance']!, 'base64') }];
  const transaction = (pkg: string, fault: (s: string) => void) => {
    const tx = PackageTransaction.begin(pkg, 'apply', fault);
    tx.write(batch1);
    fault('between-batches');
    tx.write(batch2);
    tx.commit();
  };
  const steps: string[] = [];
  const probe = join(root, 'probe');
  cpSync(pristine, probe, { recursive: true });
  transaction(probe, (s) => void steps.push(s));
  const probed = snapshotTree(probe);
  rmSync(probe, { recursive: true });

  it('the transaction on its own, without a fault, writes the new tree', () => {
    expect(probed).toEqual(newTree);
  });

  it('visits a journal step, a stage, a backup and a commit step per changed file, and the commit point', () => {
    expect(steps.filter((s) => s.startsWith('stage:')).length).toBe(N + 3); // modules, added, package.toml, last_acceptance
    expect(steps.filter((s) => s.startsWith('backup:')).length).toBe(N + 2); // modules, removed, package.toml
    expect(steps.filter((s) => s.startsWith('write:') || s.startsWith('remove:')).length).toBe(N + 4);
    for (const s of ['journal:open', 'journal:extend', 'journal:committed', 'cleanup', 'finish:cleanup']) expect(steps).toContain(s);
    expect(steps.length).toBeGreaterThan(3 * N);
  });

  it(`${sweep}: all-old (before the commit point) or all-new (after), pins match, nothing left`, () => {
    const work = join(root, 'work');
    cpSync(pristine, work, { recursive: true });
    const commitAt = steps.indexOf('journal:committed');
    const chosen = sweep === 'every step' ? steps : samplePerKind(steps);
    let oldCount = 0;
    let newCount = 0;
    chosen.forEach((step) => {
      const i = steps.indexOf(step);
      crashAt(step, (fault) => transaction(work, fault));
      expect(existsSync(applyJournalPath(work)), `journal after a crash at ${step}`).toBe(step !== 'journal:open');
      const r = recoverPendingTransaction(work);
      const tree = snapshotTree(work);
      expect(leftovers(tree), `leftovers after a crash at ${step}`).toEqual([]);
      const beforeCommit = i <= commitAt;
      expect(r.action, step).toBe(beforeCommit ? (step === 'journal:open' ? 'none' : 'rolled-back') : 'completed');
      expect(tree, `all-${beforeCommit ? 'old' : 'new'} after a crash at ${step}`).toEqual(beforeCommit ? oldTree : newTree);
      if (beforeCommit) oldCount++;
      else {
        newCount++;
        rmSync(work, { recursive: true });
        cpSync(pristine, work, { recursive: true });
      }
    });
    expect(oldCount + newCount).toBe(chosen.length);
    expect(new Set(chosen.map((s) => s.split(':')[0]))).toEqual(new Set(steps.map((s) => s.split(':')[0]))); // every kind
    expect(pinsMatch(work)).toBe(true);
  }, 600_000);

  it('a crash during recovery itself is recovered by the next command', () => {
    const work = join(root, 'work2');
    cpSync(pristine, work, { recursive: true });
    crashAt(`write:m/m${String(N - 1).padStart(3, '0')}.gc`, (fault) => transaction(work, fault));
    crashAt(`rollback:m/m${String(N >> 1).padStart(3, '0')}.gc`, (fault) => recoverPendingTransaction(work, { fault }));
    expect(recoverPendingTransaction(work).action).toBe('rolled-back');
    expect(snapshotTree(work)).toEqual(oldTree);
  });

  it('the real apply, killed halfway through its renames: the next apply succeeds (no patch/rename-no-sites)', () => {
    const work = join(root, 'work3');
    cpSync(pristine, work, { recursive: true });
    crashAt(`write:m/m${String(N >> 1).padStart(3, '0')}.gc`, (fault) => applyPatch({ pkg: work, patch, faults: fault }));
    const tree = snapshotTree(work);
    expect(Object.keys(tree).some((p) => p.includes('gcpatch-stage'))).toBe(true); // the kill left its temp files
    applyPatch({ pkg: work, patch });
    expect(snapshotTree(work)).toEqual(newTree);
  }, 120_000);

  it('the real apply, killed while acceptance runs (all files new, not committed): the next command restores all-old', () => {
    const work = join(root, 'work4');
    cpSync(pristine, work, { recursive: true });
    crashAt('store:acceptance', (fault) => applyPatch({ pkg: work, patch, faults: fault }));
    expect(pinsMatch(work)).toBe(true); // new modules and new pins, but the journal is open
    expect(recoverPendingTransaction(work).action).toBe('rolled-back');
    expect(snapshotTree(work)).toEqual(oldTree);
    expect(pinsMatch(work)).toBe(true);
  }, 120_000);
});

describe('the demo apply: a kill at every step of applyPatch, then recovery', () => {
  const patch = readPatchFile(DEMO_PATCH);
  const steps: string[] = [];
  const reference = copyPackage();
  const oldTree = snapshotTree(reference);
  applyPatch({ pkg: reference, patch, faults: (s) => void steps.push(s) });
  const newTree = snapshotTree(reference);
  const commitAt = steps.indexOf('journal:committed');

  it('has a commit point', () => expect(commitAt).toBeGreaterThan(0));

  for (const [i, step] of steps.entries()) {
    it(`kill at ${step}`, () => {
      const pkg = copyPackage();
      crashAt(step, (fault) => applyPatch({ pkg, patch, faults: fault }));
      recoverPendingTransaction(pkg);
      const tree = snapshotTree(pkg);
      expect(leftovers(tree)).toEqual([]);
      expect(tree).toEqual(i <= commitAt ? oldTree : newTree);
      expect(pinsMatch(pkg)).toBe(true);
    });
  }
});
