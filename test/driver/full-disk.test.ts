// The driver on a full disk: its result reaches %A whole or not at all. ENOSPC is injected at every
// write the driver makes (node:fs mocked below: the n-th write, fsync, rename or copy fails, a write
// after writing half of its bytes, as a filling disk does), and, where the machine lets root mount
// one, a real size-limited tmpfs is filled in 4 KiB steps. In every trial %A holds ours byte for
// byte or the correct merge, the status is 0 or 1, a failure says why in one line, and no
// temporary file stays beside %A. The same holds for a request the warm merge service serves.
import { spawnSync } from 'node:child_process';
import * as realFs from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runDriver, emergencyFallback, parseDriverArgs } from '../../src/textmerge/driver.js';
import { mergeInvocation } from '../../src/driver-service/run.js';
import { tmp } from './helpers.js';

/** The fault armed for the next run: the `at`-th call (1-based) of `op` fails with ENOSPC. */
const fault: { op: string | undefined; at: number; calls: Map<string, number> } = { op: undefined, at: 0, calls: new Map() };

function enospc(op: string): NodeJS.ErrnoException {
  const e = new Error(`ENOSPC: no space left on device, ${op}`) as NodeJS.ErrnoException;
  e.code = 'ENOSPC';
  e.errno = -28;
  e.syscall = op;
  return e;
}

/** Counts a call of `op`; true when it is the armed one. */
function hit(op: string): boolean {
  const n = (fault.calls.get(op) ?? 0) + 1;
  fault.calls.set(op, n);
  return fault.op === op && fault.at === n;
}

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...fs,
    writeSync: (fd: number, buffer: Uint8Array, offset?: number, length?: number, position?: number | null): number => {
      if (hit('writeSync')) {
        const len = length ?? buffer.length - (offset ?? 0);
        if (len > 1) return fs.writeSync(fd, buffer, offset ?? 0, Math.floor(len / 2), position);
        throw enospc('write');
      }
      // The call after a short write is the one that fails (the disk is full now).
      if (fault.op === 'writeSync' && (fault.calls.get('writeSync') ?? 0) > fault.at) throw enospc('write');
      return fs.writeSync(fd, buffer, offset, length, position);
    },
    writeFileSync: (...args: Parameters<typeof fs.writeFileSync>): void => {
      if (hit('writeFileSync')) throw enospc('write');
      fs.writeFileSync(...args);
    },
    fsyncSync: (fd: number): void => {
      if (hit('fsyncSync')) throw enospc('fsync');
      fs.fsyncSync(fd);
    },
    renameSync: (a: realFs.PathLike, b: realFs.PathLike): void => {
      if (hit('renameSync')) throw enospc('rename');
      fs.renameSync(a, b);
    },
    copyFileSync: (a: realFs.PathLike, b: realFs.PathLike, mode?: number): void => {
      if (hit('copyFileSync')) throw enospc('copyfile');
      fs.copyFileSync(a, b, mode);
    },
  };
  return { ...wrapped, default: wrapped };
});

const OPS = ['writeSync', 'writeFileSync', 'fsyncSync', 'renameSync', 'copyFileSync'] as const;

/** A module of `n` definitions, the `i`-th edited by `edit` when it returns a value. */
function module(n: number, edit: (i: number) => string | undefined = () => undefined): string {
  return Array.from({ length: n }, (_, i) => edit(i) ?? `(def app/m::f${i} (fn [x] (+ x ${i})))\n`).join('\n');
}
const BASE = module(400);
const OURS = module(400, (i) => (i % 10 === 0 ? `(def app/m::f${i} (fn [x] (* x ${i})))\n` : undefined));
const THEIRS = module(400, (i) => (i % 10 === 5 ? `(def app/m::f${i} (fn [x] (- x ${i})))\n` : undefined));
/** Both sides edit f0 differently: a conflict, markers in the result. */
const THEIRS_CONFLICT = module(400, (i) =>
  i === 0 ? `(def app/m::f0 (fn [x] (- x 0)))\n` : i % 10 === 5 ? `(def app/m::f${i} (fn [x] (- x ${i})))\n` : undefined,
);

interface Case {
  name: string;
  theirs: string;
  env: NodeJS.ProcessEnv;
  run: (inv: ReturnType<typeof parseDriverArgs>, env: NodeJS.ProcessEnv, err: (t: string) => void) => number;
}
const CASES: Case[] = [
  { name: 'structural, clean', theirs: THEIRS, env: {}, run: (inv, env, err) => runDriver(inv, env, err) },
  { name: 'structural, conflict markers', theirs: THEIRS_CONFLICT, env: {}, run: (inv, env, err) => runDriver(inv, env, err) },
  { name: 'line merge (GCPATCH_DRIVER=0)', theirs: THEIRS_CONFLICT, env: { GCPATCH_DRIVER: '0' }, run: (inv, env, err) => runDriver(inv, env, err) },
  { name: 'as the service runs it (mergeInvocation)', theirs: THEIRS, env: {}, run: (inv, env, err) => mergeInvocation(inv, env, err) },
  { name: 'the crash path (emergencyFallback)', theirs: THEIRS_CONFLICT, env: {}, run: (inv, _env, err) => emergencyFallback(inv, err) },
];

const ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATH: process.env.PATH };

/** Runs one case in `dir` (O, A, B written fresh); returns the status, %A afterwards and the messages. */
function trial(dir: string, c: Case): { status: number; result: Buffer; stderr: string; left: string[] } {
  realFs.writeFileSync(join(dir, 'O'), BASE);
  realFs.writeFileSync(join(dir, 'A'), OURS);
  realFs.writeFileSync(join(dir, 'B'), c.theirs);
  const inv = parseDriverArgs([join(dir, 'O'), join(dir, 'A'), join(dir, 'B'), '7', 'm.gc', 'base', 'ours', 'theirs']);
  let stderr = '';
  fault.calls = new Map();
  const saved = { ...process.env };
  Object.assign(process.env, ENV);
  let status: number;
  try {
    status = c.run(inv, { ...ENV, ...c.env }, (t) => (stderr += t));
  } finally {
    process.env = saved;
  }
  fault.op = undefined;
  return {
    status,
    result: realFs.readFileSync(join(dir, 'A')),
    stderr,
    left: realFs
      .readdirSync(dir)
      .filter((f) => !['O', 'A', 'B'].includes(f))
      .sort(),
  };
}

describe('the driver on a full disk', () => {
  for (const c of CASES) {
    it(`${c.name}: ENOSPC at every write leaves %A equal to ours or the merge, exit 0 or 1, one line why`, () => {
      const dir = tmp('gcpatch-full-disk-');
      try {
        fault.op = undefined;
        const clean = trial(dir, c);
        expect([0, 1]).toContain(clean.status);
        expect(clean.result.equals(Buffer.from(OURS))).toBe(false);
        const counts = new Map(fault.calls);
        const faulted: { label: string; r: ReturnType<typeof trial> }[] = [];
        for (const op of OPS) {
          for (let at = 1; at <= (counts.get(op) ?? 0); at++) {
            fault.op = op;
            fault.at = at;
            const r = trial(dir, c);
            const label = `${op} #${at}`;
            faulted.push({ label, r });
            expect([0, 1], label).toContain(r.status);
            expect(r.left, label).toEqual([]);
          }
        }
        // The result write itself was among the faults.
        expect(faulted.length).toBeGreaterThanOrEqual(3);
        // A fault that left the merge: the clean run's status. Any other: %A is ours, exit 1, one line why.
        const merged = faulted.filter(({ r }) => r.result.equals(clean.result));
        const kept = faulted.filter(({ r }) => !r.result.equals(clean.result));
        expect(merged.map(({ label, r }) => [label, r.status])).toEqual(merged.map(({ label }) => [label, clean.status]));
        expect(
          kept.map(({ label, r }) => ({
            label,
            ours: r.result.equals(Buffer.from(OURS)),
            status: r.status,
            why: /cannot write the result \(.*ENOSPC.*\); kept ours unmerged|kept ours unmerged/.test(r.stderr),
          })),
          '%A is neither ours nor the merge, or no line says why',
        ).toEqual(kept.map(({ label }) => ({ label, ours: true, status: 1, why: true })));
      } finally {
        realFs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('a write that fails: the message is one line naming the file and the cause', () => {
    const dir = tmp('gcpatch-full-disk-');
    try {
      fault.op = 'fsyncSync';
      fault.at = 1;
      const r = trial(dir, CASES[0]!);
      expect(r.status).toBe(1);
      expect(r.result.toString()).toBe(OURS);
      expect(r.stderr).toBe(
        'gcpatch: m.gc: cannot write the result (ENOSPC: no space left on device, fsync); kept ours unmerged, theirs is NOT included: free space, then merge again\n',
      );
    } finally {
      realFs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // A real full disk, where root may mount a tmpfs (elsewhere the injected faults above stand alone).
  const mount = tmp('gcpatch-tmpfs-');
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount], { stdio: 'ignore' }).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', [mount], { stdio: 'ignore' });
    realFs.rmSync(mount, { recursive: true, force: true });
  });
  it(`a size-limited tmpfs filled in 4 KiB steps: %A is ours or the merge, never a prefix (${mounted ? 'tmpfs mounted' : 'no tmpfs: not root'})`, () => {
    // Only a process that may not mount goes without the real disk.
    expect(mounted || process.getuid?.() !== 0, 'root could not mount a tmpfs').toBe(true);
    if (!mounted) return;
    const work = join(mount, 'w');
    const outside = tmp('gcpatch-full-disk-');
    const runs: { fill: number; status: number; result: Buffer; stderr: string }[] = [];
    try {
      fault.op = undefined;
      const reference = trial(outside, CASES[0]!).result;
      for (let fill = 0; ; fill += 4096) {
        realFs.rmSync(work, { recursive: true, force: true });
        realFs.mkdirSync(work);
        realFs.writeFileSync(join(work, 'A'), OURS);
        let filled: boolean;
        try {
          realFs.writeFileSync(join(work, 'filler'), Buffer.alloc(fill));
          filled = true;
        } catch {
          filled = false;
        }
        if (!filled) break;
        const inv = parseDriverArgs([join(outside, 'O'), join(work, 'A'), join(outside, 'B'), '7', 'm.gc', 'base', 'ours', 'theirs']);
        let stderr = '';
        const status = runDriver(inv, ENV, (t) => (stderr += t));
        const result = realFs.readFileSync(join(work, 'A'));
        expect([0, 1]).toContain(status);
        expect(realFs.readdirSync(work).sort()).toEqual(['A', 'filler']);
        runs.push({ fill, status, result, stderr });
      }
      // %A is the merge (exit 0) or ours (exit 1, the disk named as the cause): never a prefix.
      const merged = runs.filter((r) => r.result.equals(reference));
      const full = runs.filter((r) => !r.result.equals(reference));
      expect(merged.map((r) => [r.fill, r.status])).toEqual(merged.map((r) => [r.fill, 0]));
      expect(full.map((r) => ({ fill: r.fill, result: r.result.toString(), status: r.status, stderr: r.stderr }))).toEqual(
        full.map((r) => ({ fill: r.fill, result: OURS, status: 1, stderr: expect.stringMatching(/cannot write the result \(ENOSPC/) })),
      );
      // Some trials really ran out of space.
      expect(full.length).toBeGreaterThan(0);
    } finally {
      realFs.rmSync(outside, { recursive: true, force: true });
      realFs.rmSync(work, { recursive: true, force: true });
    }
  });
});
