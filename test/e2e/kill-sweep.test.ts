/**
 * A real `kill -9` at every write point of `apply`, `refactor apply` and `pack` (built CLI), then
 * `gcpatch recover`; and ENOSPC at every write point of `apply` and `pack` (a full disk). test/helpers/kill-preload.cjs counts the calls that change the file system
 * (writes, fsyncs, renames, links, unlinks, directory creates and removes, opens for writing) in a
 * clean run, then each trial SIGKILLs the command just before its n-th call, for every n.
 *
 * What each trial checks after `recover`:
 * - the package (every file and directory outside `.genesis/store`, bytes included) is exactly as
 *   before the command or exactly as after a clean run: never a mix;
 * - the evidence store holds only entries (64 hex digits) that the clean run also stored;
 * - no stray name anywhere: no `.gcpatch/` (lock, `.new-`/`.stale-` lock files, journal),
 *   no `.tmp-` store file, no `*.gcpatch-tmp-*`, `*.gcpatch-stage-*` or `*.gcpatch-backup-*` file.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoverPackageCommand } from '../../src/patch/guard.js';
import { BIN, copyFixture, gcpatch, ROOT, tempDir } from '../helpers/cli.js';
import { snapshotTree } from '../patch/helpers.js';

const PRELOAD = join(ROOT, 'test/helpers/kill-preload.cjs');
const PATCH = join(ROOT, 'fixtures/patches/patchdemo-refactor.gcpatch');
const STRAY = /(^|\/)\.gcpatch(\/|$)|(^|\/)\.tmp-|\.gcpatch-(tmp|stage|backup)|package\.lock/;

interface Kind {
  fixture: string;
  /** Readies a fresh copy; returns the command's arguments. */
  prepare: (pkg: string) => string[];
}

let refactorPlan: { plan: string; request: string } | undefined;
const KINDS: Record<string, Kind> = {
  apply: { fixture: 'packages/patchdemo', prepare: (pkg) => ['apply', '--patch', PATCH, '--pkg', pkg] },
  'refactor apply': {
    fixture: 'refactor/ledger',
    prepare: (pkg) => {
      // Planned once, on a copy of its own (the plan stores its request there); each trial's copy
      // gets the request as a file.
      if (refactorPlan === undefined) {
        const dir = tempDir();
        refactorPlan = { plan: join(dir, 'plan.gc'), request: join(dir, 'request.gc') };
        const args = ['refactor', 'plan', '--kind', 'move', '--from', 'ledger/int::clamp', '--to', 'ledger/ord::clamp', '--target', 'core/ord.gc'];
        const r = gcpatch([...args, '--pkg', copyFixture('refactor/ledger'), '--out', refactorPlan.plan, '--request-out', refactorPlan.request]);
        expect(r.status, r.stderr).toBe(0);
      }
      return ['refactor', 'apply', refactorPlan.plan, '--request', refactorPlan.request, '--pkg', pkg];
    },
  },
  pack: {
    fixture: 'packages/patchdemo',
    prepare: (pkg) => {
      // A hand edit that changes the module's hash: pack re-pins it.
      writeFileSync(join(pkg, 'app.gc'), readFileSync(join(pkg, 'app.gc'), 'utf8').replace("(tag 'req)", "(tag 'request)"));
      return ['pack', '--pkg', pkg];
    },
  },
};

/** Runs the CLI with the kill preload; resolves with its exit status or signal. */
function run(args: string[], env: Record<string, string>): Promise<{ status: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', PRELOAD, BIN, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status, signal) => resolve({ status, signal, stderr }));
  });
}

function storeNames(pkg: string): string[] {
  const dir = join(pkg, '.genesis', 'store');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Every name below `root` (files and directories), relative. */
function allNames(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const r = rel === '' ? name.name : `${rel}/${name.name}`;
      out.push(r);
      if (name.isDirectory()) walk(join(dir, name.name), r);
    }
  };
  walk(root, '');
  return out.sort();
}

const SWEEPS: { name: string; kind: string; fault: 'kill' | 'enospc' }[] = [
  ...Object.keys(KINDS).map((kind) => ({ name: `kill -9: ${kind}`, kind, fault: 'kill' as const })),
  ...['apply', 'pack'].map((kind) => ({ name: `ENOSPC: ${kind}`, kind, fault: 'enospc' as const })),
];

describe('a fault at every write point, then gcpatch recover: all-old or all-new, nothing stray', () => {
  for (const sweep of SWEEPS) {
    const kind = KINDS[sweep.kind]!;
    const { name } = sweep;
    it(
      name,
      async () => {
        // The clean run: the state after, and the write points.
        const clean = copyFixture(kind.fixture);
        const args = kind.prepare(clean);
        const before = snapshotTree(clean);
        const beforeStore = storeNames(clean);
        const log = join(tempDir(), 'calls');
        const ok = await run(args, { GCPATCH_TEST_KILL_COUNT: log });
        expect(ok.status, ok.stderr).toBe(0);
        const after = snapshotTree(clean);
        const afterStore = storeNames(clean);
        expect(after).not.toEqual(before);
        const calls = readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l !== '');
        expect(calls.length).toBeGreaterThan(10);
        rmSync(dirname(clean), { recursive: true, force: true });

        const outcomes = { old: 0, new: 0 };
        const problems: string[] = [];
        const trial = async (n: number): Promise<void> => {
          const pkg = copyFixture(kind.fixture);
          try {
            const trialArgs = kind.prepare(pkg);
            const r = await run(trialArgs, sweep.fault === 'kill' ? { GCPATCH_TEST_KILL_AT: String(n) } : { GCPATCH_TEST_ENOSPC_AT: String(n) });
            if (sweep.fault === 'kill' && r.signal !== 'SIGKILL') problems.push(`#${n} (${calls[n - 1]}): not killed (${r.status} ${r.stderr})`);
            // A full disk: the command exits 0 (the fault hit a step that may fail) or 70 (I/O), never crashes.
            if (sweep.fault === 'enospc' && r.status !== 0 && r.status !== 70)
              problems.push(`#${n} (${calls[n - 1]}): exit ${r.status} ${r.signal} ${r.stderr}`);
            if (sweep.fault === 'enospc' && r.status === 70 && !/ENOSPC|no space/i.test(r.stderr))
              problems.push(`#${n} (${calls[n - 1]}): exit 70 without naming the cause: ${r.stderr}`);
            recoverPackageCommand(pkg);
            const state = snapshotTree(pkg);
            if (JSON.stringify(state) === JSON.stringify(before)) outcomes.old++;
            else if (JSON.stringify(state) === JSON.stringify(after)) outcomes.new++;
            else
              problems.push(
                `#${n} (${calls[n - 1]}): neither all-old nor all-new: ${Object.keys(state)
                  .filter((k) => state[k] !== before[k] && state[k] !== after[k])
                  .join(', ')}`,
              );
            const extra = storeNames(pkg).filter((e) => !afterStore.includes(e) && !beforeStore.includes(e));
            if (extra.length > 0) problems.push(`#${n} (${calls[n - 1]}): store names the clean run did not write: ${extra.join(', ')}`);
            const stray = allNames(pkg).filter((p) => STRAY.test(p));
            if (stray.length > 0) problems.push(`#${n} (${calls[n - 1]}): stray: ${stray.join(', ')}`);
          } finally {
            rmSync(dirname(pkg), { recursive: true, force: true });
          }
        };
        // Two trials at a time (two cores).
        let next = 1;
        const worker = async (): Promise<void> => {
          while (next <= calls.length) await trial(next++);
        };
        await Promise.all([worker(), worker()]);
        expect(problems).toEqual([]);
        expect(outcomes.old + outcomes.new).toBe(calls.length);
        // Both outcomes occur: faults before the commit roll back, kills after it roll forward (and a
        // full disk after the commit still finishes it).
        expect(outcomes.old).toBeGreaterThan(0);
        expect(outcomes.new).toBeGreaterThan(0);
      },
      900_000,
    );
  }
});
