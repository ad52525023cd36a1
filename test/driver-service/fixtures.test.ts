// The merge triples of fixtures/merge/ through the warm merge service: the installed line run as git
// runs it (`sh -c`, %-expansion, the work tree's top as cwd) hands each triple to one running
// service, whose result must be the Expected bytes and exit status of test/textmerge/fixtures.test.ts.
// The test fault `crash` (test/helpers/fault-preload.cjs through NODE_OPTIONS) would make a direct
// driver crash into a line merge: the service, started without it, never takes it, so a right result
// and no crash message show that the service merged.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, readPid, serviceFolder, stopService } from '../../src/driver-service/lifecycle.js';
import { expandDriverLine, installDriver } from '../../src/driver-setup/index.js';
import { hasConflictMarkers } from '../../src/textmerge/line-based.js';
import { git, initRepo, tmp } from '../driver/helpers.js';
import { faultEnv } from '../helpers/cli.js';
import { mergeFixture, mergeFixtureCases as cases } from '../textmerge/merge-fixtures.js';

const ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GCPATCH_DRIVER_SERVICE_IDLE_MS: '20000' };

let root = '';
let repo = '';
let folder = '';
let line = '';

/** Runs the configured line on base/ours/theirs bytes in the repository's top, as git would. */
function runLine(
  base: Uint8Array,
  ours: Uint8Array,
  theirs: Uint8Array,
  markerSize: number,
  env: Record<string, string>,
): { status: number; stderr: string; result: Buffer } {
  writeFileSync(join(repo, '.merge_file_O'), base);
  writeFileSync(join(repo, '.merge_file_A'), ours);
  writeFileSync(join(repo, '.merge_file_B'), theirs);
  const expanded = expandDriverLine(
    line,
    { O: '.merge_file_O', A: '.merge_file_A', B: '.merge_file_B', L: markerSize, P: 'm.gc', S: 'base', X: 'ours', Y: 'theirs' },
    false,
  );
  const r = spawnSync('sh', ['-c', expanded], { cwd: repo, encoding: 'utf8', env: { ...process.env, ...ENV, ...env } });
  return { status: r.status ?? -1, stderr: r.stderr, result: readFileSync(join(repo, '.merge_file_A')) };
}

beforeAll(() => {
  root = tmp('gcpatch-service-fixtures-');
  repo = join(root, 'repo');
  mkdirSync(repo);
  initRepo(repo);
  installDriver({ cwd: repo, commitAttributes: false });
  git(repo, ['config', 'merge.conflictStyle', 'diff3']);
  line = git(repo, ['config', '--get', 'merge.gcpatch.driver']).stdout.trim();
  folder = serviceFolder(join(repo, '.git'));
  expectBurstToStartService();
});

afterAll(() => {
  expectServiceToStop();
  rmSync(root, { recursive: true, force: true });
});

/**
 * The first two runs (one parent process: a burst) are direct; the first leaves the burst marker
 * and starts nothing, the second starts the service in the background (which writes its own pid),
 * whose info file then appears.
 */
function expectBurstToStartService(): void {
  const enc = new TextEncoder();
  const runs = [0, 1].map(() => {
    const r = runLine(enc.encode('(def a 1)\n(def b 2)\n'), enc.encode('(def a 10)\n(def b 2)\n'), enc.encode('(def a 1)\n(def b 20)\n'), 7, {});
    return { status: r.status, pid: existsSync(join(folder, 'pid')) };
  });
  expect(runs.map((r) => r.status)).toEqual([0, 0]);
  expect(runs[0]!.pid, 'a pid file after the first run of the burst').toBe(false);
  for (let i = 0; i < 1000 && !existsSync(join(folder, 'info')); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  expect(existsSync(join(folder, 'info'))).toBe(true);
}

/** Stopping the service ends its process. */
function expectServiceToStop(): void {
  const pid = readPid(folder);
  stopService(folder, true);
  expect(pid === undefined ? false : isAlive(pid)).toBe(false);
}

describe('fixtures/merge triples through the warm merge service', () => {
  it('has every fixture triple (95 cases)', () => {
    expect(cases.length).toBe(95);
  });

  for (const name of cases) {
    it(name, () => {
      const { read, options } = mergeFixture(name);
      const expected = read('Expected.gc');
      // `git -c merge.conflictStyle=merge` reaches the service as GIT_CONFIG_PARAMETERS.
      const style: Record<string, string> = options.style === 'merge' ? { GIT_CONFIG_PARAMETERS: "'merge.conflictStyle=merge'" } : {};
      const pid = readPid(folder);
      const r = runLine(read('Base.gc'), read('Left.gc'), read('Right.gc'), options.markerSize ?? 7, { ...faultEnv('crash'), ...style });
      expect(r.stderr).not.toMatch(/driver crashed/);
      expect(r.result.toString('latin1')).toBe(Buffer.from(expected).toString('latin1'));
      expect(r.status).toBe(options.exitCode ?? (hasConflictMarkers(expected) ? 1 : 0));
      expect(readPid(folder)).toBe(pid); // the same service throughout
      expect(existsSync(join(repo, '.merge_file_A.gcpatch'))).toBe(false);
    });
  }
});
