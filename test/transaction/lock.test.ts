/**
 * The package lock. A second apply/pack on a locked package fails at once with
 * `patch/package-locked` (or waits with `lockWaitMs`); a lock of a dead process (or of a reused
 * pid) is broken; another host's lock is never broken.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, readPatchFile } from '../../src/patch/apply/apply.js';
import { packOnDisk } from '../../src/patch/apply/host.js';
import { acquirePackageLock, lockPath, LOCK_FORMAT, processStartTime } from '../../src/transaction/lock.js';
import { recoverPackageCommand } from '../../src/patch/guard.js';
import { copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../patch/helpers.js';

const patch = readPatchFile(DEMO_PATCH);

function writeLock(pkg: string, owner: Record<string, unknown>): void {
  mkdirSync(join(pkg, '.gcpatch'), { recursive: true });
  writeFileSync(
    lockPath(pkg),
    JSON.stringify({
      format: LOCK_FORMAT,
      hostname: hostname(),
      startTime: null,
      token: 'feedfacefeedface',
      acquiredAt: '2026-01-01T00:00:00.000Z',
      command: 'apply',
      ...owner,
    }) + '\n',
  );
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('package lock', () => {
  it('a held lock refuses apply and pack at once (exit 70, owner named), the package untouched', () => {
    const pkg = copyPackage();
    const lock = acquirePackageLock(pkg, { command: 'apply' });
    try {
      const before = snapshotTree(pkg);
      const error = errorOf(() => applyPatch({ pkg, patch }));
      expect(error.code).toBe('patch/package-locked');
      expect(error.exitCode).toBe(70);
      expect(error.message).toContain(`pid ${process.pid}`);
      expect((error.details as { owner: { pid: number } }).owner.pid).toBe(process.pid);
      expect(errorOf(() => packOnDisk(pkg)).code).toBe('patch/package-locked');
      expect(errorOf(() => recoverPackageCommand(pkg)).code).toBe('patch/package-locked');
      expect(snapshotTree(pkg)).toEqual(before);
    } finally {
      lock.release();
    }
    expect(existsSync(join(pkg, '.gcpatch'))).toBe(false);
    applyPatch({ pkg, patch });
  });

  it('the lock file is complete JSON naming pid, host and start time', () => {
    const pkg = copyPackage();
    const lock = acquirePackageLock(pkg, { command: 'pack' });
    const owner = JSON.parse(readFileSync(lockPath(pkg), 'utf8'));
    expect(owner).toMatchObject({ format: LOCK_FORMAT, pid: process.pid, hostname: hostname(), command: 'pack', startTime: processStartTime('self') });
    lock.release();
    expect(existsSync(lockPath(pkg))).toBe(false);
    lock.release(); // idempotent
    expect(existsSync(lockPath(pkg))).toBe(false);
  });

  it('a lock of a dead process is broken and the apply proceeds', () => {
    const pkg = copyPackage();
    writeLock(pkg, { pid: deadPid() });
    const before = snapshotTree(pkg);
    applyPatch({ pkg, patch });
    expect(existsSync(lockPath(pkg))).toBe(false);
    expect(snapshotTree(pkg)).not.toEqual(before);
  });

  it('a lock whose pid now belongs to another process (other start time) is broken', () => {
    const pkg = copyPackage();
    writeLock(pkg, { pid: process.pid, startTime: '1' });
    const before = snapshotTree(pkg);
    applyPatch({ pkg, patch });
    expect(existsSync(lockPath(pkg))).toBe(false);
    expect(snapshotTree(pkg)).not.toEqual(before);
  });

  it("another host's lock is never broken: the message says how to remove it", () => {
    const pkg = copyPackage();
    writeLock(pkg, { pid: 1, hostname: 'build-agent-7' });
    const error = errorOf(() => applyPatch({ pkg, patch }));
    expect(error.code).toBe('patch/package-locked');
    expect(error.message).toContain('another host');
    expect(existsSync(lockPath(pkg))).toBe(true);
  });

  it('garbage in a fresh lock file counts as held; an old one is broken', () => {
    const pkg = copyPackage();
    mkdirSync(join(pkg, '.gcpatch'), { recursive: true });
    writeFileSync(lockPath(pkg), '{"format":');
    expect(errorOf(() => applyPatch({ pkg, patch })).code).toBe('patch/package-locked');
    const old = new Date(Date.now() - 60_000);
    spawnSync('touch', ['-d', old.toISOString(), lockPath(pkg)]);
    const before = snapshotTree(pkg);
    applyPatch({ pkg, patch });
    expect(existsSync(lockPath(pkg))).toBe(false);
    expect(snapshotTree(pkg)).not.toEqual(before);
  });

  it('lockWaitMs waits for a live owner that releases, then proceeds (serialized)', async () => {
    const pkg = copyPackage();
    const control = join(pkg, '.gcpatch');
    // A live process holds the lock until, once armed, it sees a waiter try to take it (the
    // waiter's temp file `package.lock.new-<token>` appears); then it marks and releases it.
    const holder = spawn(process.execPath, [
      '-e',
      `const fs=require('fs'),path=require('path');const dir=${JSON.stringify(control)},lock=${JSON.stringify(lockPath(pkg))};` +
        `fs.mkdirSync(dir,{recursive:true});let armed=false;` +
        `fs.watch(dir,(e,name)=>{if(name==='arm')armed=true;else if(armed&&String(name).startsWith('package.lock.new-')){armed=false;` +
        `fs.writeFileSync(path.join(dir,'..','..','released'),'');fs.unlinkSync(path.join(dir,'arm'));fs.unlinkSync(lock);process.exit(0);}});` +
        `fs.writeFileSync(lock,JSON.stringify({format:${JSON.stringify(LOCK_FORMAT)},pid:process.pid,hostname:require('os').hostname(),startTime:null,token:'0123456789abcdef',acquiredAt:new Date().toISOString(),command:'apply'}));` +
        `console.log('held');`,
    ]);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    expect(errorOf(() => applyPatch({ pkg, patch })).code).toBe('patch/package-locked');
    const released = join(pkg, '..', 'released');
    expect(existsSync(released)).toBe(false);
    writeFileSync(join(control, 'arm'), '');
    const before = snapshotTree(pkg);
    applyPatch({ pkg, patch, lockWaitMs: 60_000 }); // waits: the holder releases only on seeing it try
    expect(existsSync(released)).toBe(true); // the apply took the lock after the holder let it go
    expect(snapshotTree(pkg)).not.toEqual(before);
    await exited;
  });
});
