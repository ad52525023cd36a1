// The bundled driver entry as git runs it: arguments, labels, marker size and style, exit codes,
// fallbacks and the crash path. Exit codes must never exceed 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDriverArgs } from '../../src/textmerge/driver.js';
import { faultEnv } from '../helpers/cli.js';
import { DRIVER, git, runDriver, tmp } from './helpers.js';

const BASE = '(def a 1)\n\n(def b 2)\n';

/** Writes O, A, B into a fresh directory and returns it. */
function triple(base: string | Uint8Array, ours: string | Uint8Array, theirs: string | Uint8Array): string {
  const dir = tmp();
  writeFileSync(join(dir, 'O'), base);
  writeFileSync(join(dir, 'A'), ours);
  writeFileSync(join(dir, 'B'), theirs);
  return dir;
}

const args = (extra: string[] = ['7', 'm.gc', '%S', '%X', '%Y']): string[] => ['O', 'A', 'B', ...extra];

describe('driver entry (driver/dist/index.js)', () => {
  it('prints its version and passes its self-check', () => {
    const dir = tmp();
    expect(runDriver(['--version'], dir).stdout).toMatch(/^gcpatch-driver \d+\.\d+\.\d+\n$/);
    const r = runDriver(['--self-check'], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ok /);
  });

  it('parses git placeholders, defaults labels that git < 2.44 leaves literal', () => {
    expect(parseDriverArgs(['O', 'A', 'B', '%L', '%P', '%S', '%X', '%Y'])).toMatchObject({
      markerSize: 7,
      path: undefined,
      labels: { base: 'base', ours: 'ours', theirs: 'theirs' },
    });
    expect(parseDriverArgs(['--manifest', 'O', 'A', 'B', '12', 'd/x.toml', 'main~1', 'HEAD', 'feature "x"'])).toMatchObject({
      mode: 'manifest',
      markerSize: 12,
      path: 'd/x.toml',
      labels: { base: 'main~1', ours: 'HEAD', theirs: 'feature "x"' },
    });
    expect(parseDriverArgs(['O', 'A', 'B', '-3']).markerSize).toBe(7);
  });

  it('merges cleanly into %A and exits 0', () => {
    const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 1)\n\n(def b 20)\n');
    const r = runDriver(args(), dir);
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe('(def a 10)\n\n(def b 20)\n');
  });

  it('marks one form with the labels and marker size given, exits 1', () => {
    const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 11)\n\n(def b 2)\n');
    const r = runDriver(['O', 'A', 'B', '9', 'src/m.gc', 'base', 'HEAD', 'feature "quoted" x'], dir);
    expect(r.status).toBe(1);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe('<<<<<<<<< HEAD\n(def a 10)\n=========\n(def a 11)\n>>>>>>>>> feature "quoted" x\n\n(def b 2)\n');
    expect(r.stderr).toContain('src/m.gc: conflict in (def a …) at line 1 [form/divergent-edit]');
  });

  it('writes diff3 markers when the repository asks for diff3 or zdiff3', () => {
    for (const style of ['diff3', 'zdiff3']) {
      const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 11)\n\n(def b 2)\n');
      git(dir, ['init', '-q']);
      git(dir, ['config', 'merge.conflictStyle', style]);
      expect(runDriver(args(), dir).status).toBe(1);
      expect(readFileSync(join(dir, 'A'), 'utf8')).toContain('||||||| base\n(def a 1)\n=======\n');
    }
  });

  it('GCPATCH_DRIVER=0 and a zero budget fall back to git merge-file', () => {
    for (const env of [{ GCPATCH_DRIVER: '0' }, { GCPATCH_DRIVER_TIMEOUT_MS: '0' }] as Record<string, string>[]) {
      const dir = triple('(def a 1)\n(def b 2)\n', '(def a 10)\n(def b 2)\n', '(def a 1)\n(def b 20)\n');
      const r = runDriver(args(), dir, env);
      expect(r.stderr).toMatch(/falling back to git merge-file/);
      // git's line merge sees adjacent changes: one conflict, exit 1.
      expect(r.status).toBe(1);
      expect(readFileSync(join(dir, 'A'), 'utf8')).toMatch(/^<<<<<<< ours\n/);
    }
  });

  it('keeps ours and says so when a side is binary; never exits above 1', () => {
    const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', Buffer.from('(def a 1)\0\n'));
    const r = runDriver(args(), dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/binary/);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe('(def a 10)\n\n(def b 2)\n');
  });

  it('falls back when a side does not parse or already has markers', () => {
    const bad = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 1\n\n(def b 20)\n');
    const r1 = runDriver(args(), bad);
    expect(r1.stderr).toMatch(/core\/parse\/\w+/);
    expect([0, 1]).toContain(r1.status);
    const marked = triple(BASE, '<<<<<<< x\n(def a 10)\n=======\n(def a 3)\n>>>>>>> y\n\n(def b 2)\n', '(def a 1)\n\n(def b 20)\n');
    expect(runDriver(args(), marked).stderr).toMatch(/already contains conflict markers/);
  });

  it('survives missing inputs and bad arguments with exit 1', () => {
    const dir = triple(BASE, '(def a 10)\n', '(def a 1)\n');
    const r = runDriver(['O', 'A', 'missing', '7'], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/kept ours unmerged/);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe('(def a 10)\n');
    expect(runDriver(['only-one'], dir).status).toBe(1);
    expect(runDriver(['O', 'nope', 'B'], dir).status).toBe(1);
  });

  it('on a crash still writes a line merge with markers and exits 1', () => {
    const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 11)\n\n(def b 2)\n');
    const r = runDriver(args(), dir, faultEnv('crash'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/driver crashed/);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toMatch(/^<<<<<<< ours\n\(def a 10\)\n=======\n\(def a 11\)\n>>>>>>> theirs\n/);
  });

  it('the shipped bundle has no test switch: without the test preload GCPATCH_TEST_FAULT (and the old GCPATCH_DRIVER_FAULT) change nothing', () => {
    const bundle = readFileSync(DRIVER, 'latin1');
    expect(bundle).not.toContain('GCPATCH_TEST_FAULT');
    expect(bundle).not.toContain('GCPATCH_DRIVER_FAULT');
    const dir = triple(BASE, '(def a 10)\n\n(def b 2)\n', '(def a 1)\n\n(def b 20)\n');
    const r = runDriver(args(), dir, { GCPATCH_TEST_FAULT: 'crash', GCPATCH_DRIVER_FAULT: 'crash' });
    expect(r).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe('(def a 10)\n\n(def b 20)\n');
    // Control: the same run with the preload crashes.
    writeFileSync(join(dir, 'A'), '(def a 10)\n\n(def b 2)\n');
    expect(runDriver(args(), dir, faultEnv('crash')).stderr).toMatch(/driver crashed \(injected fault/);
  });

  it('runs the manifest driver with --manifest', () => {
    const h = (c: string): string => c.repeat(64);
    const m = (pin: string): string => `name = "demo"\nversion = "0.1.0"\nobligations = []\n\n[[modules]]\npath = "a.gc"\nhash = "${pin}"\n`;
    const dir = triple(m(h('1')), m(h('2')), m(h('3')));
    const r = runDriver(['--manifest', ...args()], dir);
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'A'), 'utf8')).toBe(m(''));
    expect(r.stderr).toMatch(/gcpatch pack/);
  });
});
