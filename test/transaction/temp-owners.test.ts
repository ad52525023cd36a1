/**
 * Temporary files that name their writer (src/util/temp-owner.ts): the package lock's `.new-` and
 * `.stale-` files and the evidence store's `.tmp-` files. One left by a process that is gone (killed
 * between writing it and putting it in place) is reported by `store verify` and removed by whoever
 * next takes the package lock (`recover`, `apply`); one of a live writer stays. A lock that cannot
 * be written (a full disk) leaves no empty `.gcpatch/`.
 */
import { spawnSync } from 'node:child_process';
import * as realFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { recoverPackageCommand } from '../../src/patch/guard.js';
import { EvidenceStore } from '../../src/store/store.js';
import { abandonedLockTemps, acquirePackageLock } from '../../src/transaction/lock.js';
import { ownerAlive, ownerTag, processStartTime } from '../../src/util/temp-owner.js';
import { copyPackage, DEMO_PATCH, errorOf } from '../patch/helpers.js';

/** When set, the next exclusive create of a lock temp file fails with ENOSPC (a full disk). */
const full = { lock: false };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...fs,
    openSync: (path: realFs.PathLike, flags: realFs.OpenMode, mode?: realFs.Mode | null): number => {
      if (full.lock && String(path).includes('package.lock.new-')) {
        const e = new Error('ENOSPC: no space left on device, open') as NodeJS.ErrnoException;
        e.code = 'ENOSPC';
        throw e;
      }
      return fs.openSync(path, flags, mode);
    },
  };
  return { ...wrapped, default: wrapped };
});

const patch = readPatchFile(DEMO_PATCH);
const HEX = 'ab'.repeat(32);

/** A process id that was just used and is gone now. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
}

describe('temporary files name their writer', () => {
  it('ownerTag is this process and its start time; ownerAlive tells a gone or reused pid from a live one', () => {
    const start = processStartTime('self');
    expect(ownerTag()).toBe(`${process.pid}-${start ?? '0'}`);
    expect(ownerAlive(process.pid, start ?? undefined)).toBe(true);
    expect(ownerAlive(process.pid, undefined)).toBe(true);
    expect(ownerAlive(deadPid(), undefined)).toBe(false);
    // The pid of this process with another start time: a pid reused since.
    expect(ownerAlive(process.pid, start === null ? '0' : `${start}1`)).toBe(start === null);
  });

  it("the lock: abandoned .new-/.stale- files (any format) go when the lock is taken; a live writer's stay", () => {
    const pkg = copyPackage();
    const control = join(pkg, '.gcpatch');
    realFs.mkdirSync(control);
    const dead = deadPid();
    const abandoned = [
      `package.lock.new-${dead}-12345-0123456789abcdef`,
      `package.lock.stale-${dead}-12345-89abcdef`,
      'package.lock.new-fedcba9876543210', // gcpatch ≤ 0.1: no owner in the name
      `package.lock.stale-${dead}-0a1b2c3d`,
    ];
    const live = `package.lock.new-${ownerTag()}-00000000deadbeef`;
    for (const name of [...abandoned, live]) realFs.writeFileSync(join(control, name), '{}\n');
    expect(abandonedLockTemps(control)).toEqual([...abandoned].sort());
    const lock = acquirePackageLock(pkg, { command: 'apply' });
    try {
      expect(realFs.readdirSync(control).sort()).toEqual([live, 'package.lock'].sort());
    } finally {
      lock.release();
    }
    realFs.rmSync(join(control, live));
  });

  it("the store: verify reports abandoned .tmp- files, recover removes them, a live writer's stays, entries untouched", () => {
    const pkg = copyPackage();
    const store = EvidenceStore.forPackage(pkg);
    const entry = store.put(new TextEncoder().encode('(evidence 1)'));
    const dead = deadPid();
    const abandoned = [`.tmp-${HEX}-${dead}-12345-0`, `.tmp-${HEX}-${dead}-3`]; // with and without a start time
    const live = `.tmp-${HEX}-${ownerTag()}-7`;
    for (const name of [...abandoned, live]) realFs.writeFileSync(join(store.dir, name), 'partial');
    const verified = store.verify();
    expect(verified).toMatchObject({ ok: true, checked: 1, skippedTemp: 3 });
    expect(verified.abandonedTemp).toEqual([...abandoned].sort());
    const r = recoverPackageCommand(pkg);
    expect(r.action).toBe('none');
    expect(realFs.readdirSync(store.dir).sort()).toEqual([entry, live].sort());
    expect(store.verify().abandonedTemp).toEqual([]);
  });

  it('the next apply removes them too (it takes the lock)', () => {
    const pkg = copyPackage();
    const store = EvidenceStore.forPackage(pkg);
    realFs.mkdirSync(store.dir, { recursive: true });
    const stray = `.tmp-${HEX}-${deadPid()}-999-0`;
    realFs.writeFileSync(join(store.dir, stray), 'partial');
    applyPatch({ pkg, patch });
    expect(realFs.readdirSync(store.dir)).not.toContain(stray);
    expect(realFs.readdirSync(store.dir).every((n) => /^[0-9a-f]{64}$/.test(n))).toBe(true);
  });

  it('a lock that hits a full disk leaves no empty .gcpatch/ (and a .gcpatch/ that holds something stays)', () => {
    const pkg = copyPackage();
    full.lock = true;
    try {
      const error = errorOf(() => acquirePackageLock(pkg, { command: 'apply' }));
      expect(error.code).toBe('io/enospc');
      expect(error.message).toContain('ENOSPC');
      expect(realFs.existsSync(join(pkg, '.gcpatch'))).toBe(false);
      realFs.mkdirSync(join(pkg, '.gcpatch'));
      realFs.writeFileSync(join(pkg, '.gcpatch', 'keep'), '');
      expect(errorOf(() => acquirePackageLock(pkg, { command: 'apply' })).code).toBe('io/enospc');
      expect(realFs.readdirSync(join(pkg, '.gcpatch'))).toEqual(['keep']);
    } finally {
      full.lock = false;
    }
  });
});
