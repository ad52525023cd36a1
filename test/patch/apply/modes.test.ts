/**
 * docs/patches.md "File modes and symbolic links": modes and link structure. A rewritten file keeps its mode (0600 stays private,
 * 0444 stays read-only, 0755 stays executable); a rollback or a recovery brings back the very same
 * inode; a symlinked package.toml, `.genesis` or module is refused up front, the link untouched.
 */
import { chmodSync, lstatSync, mkdirSync, readlinkSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, readPatchFile } from '../../../src/patch/apply/apply.js';
import { packOnDisk } from '../../../src/patch/apply/host.js';
import { recoverPendingTransaction } from '../../../src/patch/guard.js';
import { SimulatedCrash } from '../../../src/patch/transaction.js';
import { injectedFault, INJECTED_FAULT } from '../../helpers/faults.js';
import { copyPackage, DEMO_PATCH, errorOf, snapshotTree } from '../helpers.js';

const patch = readPatchFile(DEMO_PATCH);
const mode = (f: string) => statSync(f).mode & 0o7777;
const MODES: Record<string, number> = { 'app.gc': 0o600, 'lib/math.gc': 0o444, 'package.toml': 0o755 };

function withModes(): string {
  const pkg = copyPackage();
  for (const [f, m] of Object.entries(MODES)) chmodSync(join(pkg, f), m);
  return pkg;
}

describe('modes', () => {
  it('apply keeps 0600, 0444 and 0755 on rewritten files; new files get 0666 minus the umask', () => {
    const pkg = withModes();
    const r = applyPatch({ pkg, patch });
    expect(r.changedPaths).toContain('app.gc');
    for (const [f, m] of Object.entries(MODES)) expect(mode(join(pkg, f)), f).toBe(m);
    const umask = process.umask(0o022);
    process.umask(umask);
    expect(mode(join(pkg, 'lib/utils.gc'))).toBe(0o666 & ~umask);
  });

  it('pack keeps the mode of package.toml', () => {
    const pkg = withModes();
    writeFileSync(join(pkg, 'app.gc'), '(def demo/app::main 1)\n');
    chmodSync(join(pkg, 'app.gc'), 0o600);
    packOnDisk(pkg);
    expect(mode(join(pkg, 'package.toml'))).toBe(0o755);
  });

  it('a rolled-back apply restores bytes, modes and the very same inodes', () => {
    const pkg = withModes();
    const inodes = Object.fromEntries(Object.keys(MODES).map((f) => [f, statSync(join(pkg, f)).ino]));
    const before = snapshotTree(pkg);
    const error = errorOf(() =>
      applyPatch({
        pkg,
        patch,
        faults: (s) => {
          if (s === 'after-report-stored') throw injectedFault('late');
        },
      }),
    );
    expect(error.code).toBe(INJECTED_FAULT);
    expect(snapshotTree(pkg)).toEqual(before);
    for (const [f, m] of Object.entries(MODES)) {
      expect(mode(join(pkg, f)), f).toBe(m);
      expect(statSync(join(pkg, f)).ino, f).toBe(inodes[f]);
    }
  });

  it('a crash, then recovery, restores modes too', () => {
    const pkg = withModes();
    try {
      applyPatch({
        pkg,
        patch,
        faults: (s) => {
          if (s === 'store:acceptance') throw new SimulatedCrash(s);
        },
      });
    } catch (e) {
      if (!(e instanceof SimulatedCrash)) throw e;
    }
    expect(recoverPendingTransaction(pkg).action).toBe('rolled-back');
    for (const [f, m] of Object.entries(MODES)) expect(mode(join(pkg, f)), f).toBe(m);
  });
});

describe('symbolic links are refused up front, never replaced', () => {
  it('a symlinked package.toml: apply and pack fail with patch/symlink-target, the link stays', () => {
    const pkg = copyPackage();
    renameSync(join(pkg, 'package.toml'), join(pkg, 'real.toml'));
    symlinkSync('real.toml', join(pkg, 'package.toml'));
    const before = snapshotTree(pkg);
    for (const run of [() => applyPatch({ pkg, patch }), () => packOnDisk(pkg)]) {
      const error = errorOf(run);
      expect(error.code).toBe('patch/symlink-target');
      expect(error.exitCode).toBe(10);
      expect(error.message).toContain('symbolic link');
    }
    expect(lstatSync(join(pkg, 'package.toml')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(pkg, 'package.toml'))).toBe('real.toml');
    expect(snapshotTree(pkg)).toEqual(before);
  });

  it('a symlinked .genesis directory or last_acceptance is refused', () => {
    for (const setup of [
      (pkg: string) => {
        mkdirSync(join(pkg, 'elsewhere'));
        symlinkSync('elsewhere', join(pkg, '.genesis'));
      },
      (pkg: string) => {
        mkdirSync(join(pkg, '.genesis'));
        writeFileSync(join(pkg, 'acc'), 'x\n');
        symlinkSync('../acc', join(pkg, '.genesis', 'last_acceptance'));
      },
    ]) {
      const pkg = copyPackage();
      setup(pkg);
      const before = snapshotTree(pkg);
      expect(errorOf(() => applyPatch({ pkg, patch })).code).toBe('patch/symlink-target');
      expect(snapshotTree(pkg)).toEqual(before);
    }
  });

  it('a symlinked module is refused (patch/symlink-path), the link stays', () => {
    const pkg = copyPackage();
    renameSync(join(pkg, 'app.gc'), join(pkg, 'app-real.gc'));
    symlinkSync('app-real.gc', join(pkg, 'app.gc'));
    const before = snapshotTree(pkg);
    expect(errorOf(() => applyPatch({ pkg, patch })).code).toBe('patch/symlink-path');
    expect(snapshotTree(pkg)).toEqual(before);
  });
});
