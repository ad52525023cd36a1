// The restart back-off of the warm merge service (src/driver-service/line.ts RESTART_BACK_OFF):
// the line's service parts run under `sh`, file after file, in a temporary folder, with a fake
// `node` first on PATH that logs its arguments and exits at once, as a service killed right after
// its start would: its `pid` file stays behind, naming a process that is gone. Every run is one
// "file" of a burst: its parent process (this one) is the marker's `$PPID`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RESTART_BACK_OFF, serviceHandOverPart, serviceStartPart } from '../../src/driver-service/line.js';
import { shQuote } from '../../src/driver-setup/line.js';

const root = mkdtempSync(join(tmpdir(), 'gcpatch-back-off-'));
const bin = join(root, 'bin');
const driver = join(root, 'driver');
const folder = join(root, 'service');
const burst = join(folder, 'burst');
const pidFile = join(folder, 'pid');
const starts = join(root, 'starts.log');
const configFalse = join(root, 'gitconfig-false');
mkdirSync(bin);
mkdirSync(driver);
writeFileSync(join(driver, 'launch.cjs'), '');
writeFileSync(join(driver, 'index.js'), '');
writeFileSync(join(bin, 'node'), `#!/bin/sh\necho "$$ $*" >>${shQuote(starts)}\n`, { mode: 0o755 });
writeFileSync(configFalse, '[gcpatch]\n\tdriverService = false\n');

afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(starts, { force: true });
});

/** The marker's `$PPID`: the parent of every `sh` these tests run. */
const ppid = process.pid;

/**
 * The line's service parts as `sh` runs them after git's expansion (the hand-over, a direct merge
 * that leaves %A alone, the start part), then `wait` for the background start to end.
 */
const script = (() => {
  const values: Record<string, string> = { '%O': 'O', '%A': 'A', '%B': 'B', '%L': '7' };
  const handOver = serviceHandOverPart({ folderExpression: '"$d/../service"', version: '0.1.0' }, 'gc')
    .map((piece, i) => (i % 2 === 0 ? piece : shQuote(join(root, values[piece]!))))
    .join('');
  return `d=${shQuote(driver)}; p=m.gc b=base o=ours t=theirs; ${handOver}s=0; ${serviceStartPart()}wait`;
})();

interface File {
  /** Whether the run attempted a start (the fake `node` ran with `--serve`). */
  started: boolean;
  /** The burst marker afterwards ('' when there is none). */
  marker: string;
  status: number | null;
}

/** Runs the line's service parts once (one file); `env` adds to a clean environment. */
function file(env: Record<string, string> = {}): File {
  const before = existsSync(starts) ? readFileSync(starts, 'utf8') : '';
  const r = spawnSync('sh', ['-c', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GCPATCH_DRIVER_SERVICE_WAIT: '0',
      ...env,
    },
  });
  const after = existsSync(starts) ? readFileSync(starts, 'utf8') : '';
  const added = after.slice(before.length);
  expect(added === '' || /^[0-9]+ .*\/launch\.cjs --serve .*\/service 0\.1\.0\n$/.test(added), added).toBe(true);
  return { started: added !== '', marker: existsSync(burst) ? readFileSync(burst, 'utf8') : '', status: r.status };
}

/** Runs `n` files; returns the 1-based numbers of those that started a service, and every marker. */
function files(n: number, env: Record<string, string> = {}): { started: number[]; markers: string[] } {
  const runs = Array.from({ length: n }, () => file(env));
  expect(runs.every((r) => r.status === 0)).toBe(true);
  return { started: runs.flatMap((r, i) => (r.started ? [i + 1] : [])), markers: runs.map((r) => r.marker) };
}

/** A pid that named a process which has exited (and was reaped). */
function deadPid(): number {
  return spawnSync('true').pid!;
}

function writePid(pid: number | string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(pidFile, `${pid}\n`);
}

/**
 * A running service, as far as the start part can tell: `pid` names a live process (this one). No
 * `requests` FIFO, so that the hand-over does not try it (this process reads no tokens).
 */
function liveService(): void {
  writePid(ppid);
  rmSync(join(folder, 'requests'), { force: true });
}

function writeMarker(text: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(burst, text);
}

describe('the restart back-off', () => {
  it("is the table the docs describe, within what the line's case patterns can hold", () => {
    expect(RESTART_BACK_OFF).toEqual([0, 1, 4, 16, 64]);
    expect(RESTART_BACK_OFF.length).toBeLessThanOrEqual(10);
    expect(RESTART_BACK_OFF.every((u) => Number.isInteger(u) && u >= 0 && u <= 99)).toBe(true);
    expect(RESTART_BACK_OFF[0]).toBe(0);
  });

  it('a service that dies at every start: starts at files 2, 3, 5, 10, 27, not at every file', () => {
    const { started, markers } = files(40);
    expect(started).toEqual([2, 3, 5, 10, 27]);
    const m = (c: number, u: number): string => `${ppid} ${c} ${u}\n`;
    expect(markers.slice(0, 12)).toEqual([
      `${ppid}\n`,
      `${ppid}\n`,
      m(1, 0),
      m(2, 0),
      m(2, 0),
      m(3, 3),
      m(3, 2),
      m(3, 1),
      m(3, 0),
      m(3, 0),
      m(4, 15),
      m(4, 14),
    ]);
    expect(markers[25]).toBe(m(4, 0)); // file 26
    expect(markers[27]).toBe(m(4, 63)); // file 28 found the fifth death: the last entry from now on
    expect(markers[39]).toBe(m(4, 51));
    // Five starts logged; file 28 removed the pid file of the last one.
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(5);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('a new git command (another $PPID in the marker) starts counting afresh; its first file only marks the burst', () => {
    writeMarker(`${ppid + 1} 4 63\n`);
    writePid(deadPid());
    expect(file()).toMatchObject({ started: false, marker: `${ppid}\n` });
    expect(existsSync(pidFile)).toBe(true); // left for the next file, which counts that death as the first
    expect(file()).toMatchObject({ started: true, marker: `${ppid} 1 0\n` });
  });

  it('the older marker ($PPID alone) and markers whose fields are no counts read as no deaths and nothing to skip', () => {
    for (const marker of [`${ppid}\n`, `${ppid}`, `${ppid} x y\n`, `${ppid} 9 3\n`, `${ppid} 0 0\n`, `${ppid} -1 -1\n`]) {
      rmSync(folder, { recursive: true, force: true });
      writeMarker(marker);
      writePid(deadPid());
      expect(file(), marker).toMatchObject({ started: true, marker: `${ppid} 1 0\n` });
    }
    for (const marker of [`${ppid} 2 08\n`, `${ppid} 2 3 4\n`, `${ppid} 2 100\n`, `${ppid} 2 1x\n`]) {
      rmSync(folder, { recursive: true, force: true });
      writeMarker(marker);
      // No death: a skip that does not read as a count is no skip (a start, the marker as it was).
      expect(file(), marker).toMatchObject({ started: true, marker });
    }
  });

  it('killed once by a user: the next file restarts at once; a second death later in the burst backs off', () => {
    writeMarker(`${ppid}\n`);
    liveService(); // nothing to start, the marker stays
    expect(file()).toMatchObject({ started: false, marker: `${ppid}\n` });
    writePid(deadPid());
    expect(file()).toMatchObject({ started: true, marker: `${ppid} 1 0\n` });
    for (let i = 0; i < 5; i++) {
      liveService();
      expect(file()).toMatchObject({ started: false, marker: `${ppid} 1 0\n` });
    }
    writePid(deadPid());
    expect(file()).toMatchObject({ started: false, marker: `${ppid} 2 0\n` });
    expect(existsSync(pidFile)).toBe(false);
    expect(file()).toMatchObject({ started: true, marker: `${ppid} 2 0\n` });
  });

  it('a service that exits by itself (pid and info removed) restarts without counting; an empty pid file is no death', () => {
    writeMarker(`${ppid} 2 0\n`);
    expect(file()).toMatchObject({ started: true, marker: `${ppid} 2 0\n` });
    rmSync(folder, { recursive: true, force: true });
    writeMarker(`${ppid} 2 0\n`);
    writeFileSync(pidFile, '');
    expect(file()).toMatchObject({ started: true, marker: `${ppid} 2 0\n` });
  });

  it('a hand-over that gets no answer (a live pid that never reads its token) counts as a death', () => {
    writeMarker(`${ppid}\n`);
    const impostor = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writePid(impostor.pid!);
      spawnSync('mkfifo', ['-m', '600', join(folder, 'requests')]);
      // GCPATCH_DRIVER_SERVICE_WAIT=0: the watcher gives up at once; the line removes the pid file.
      expect(file()).toMatchObject({ started: true, marker: `${ppid} 1 0\n` });
      writePid(impostor.pid!);
      expect(file()).toMatchObject({ started: false, marker: `${ppid} 2 0\n` });
    } finally {
      impostor.kill('SIGKILL');
    }
  });

  it('a stale answer (another version) is no death', async () => {
    writeMarker(`${ppid} 1 0\n`);
    mkdirSync(folder, { recursive: true });
    spawnSync('mkfifo', ['-m', '600', join(folder, 'requests')]);
    // A stand-in of an old service: takes the token, gives up its pid file (as a service does on
    // its way out) and answers stale.
    const old = spawn('sh', ['-c', 'read -r t <"$1/requests" && rm -f "$1/pid" && echo stale >"$1/r.$t"', 'sh', folder], { stdio: 'ignore' });
    const exited = new Promise((done) => old.on('exit', done));
    try {
      writePid(old.pid!);
      expect(file({ GCPATCH_DRIVER_SERVICE_WAIT: '10' })).toMatchObject({ started: true, marker: `${ppid} 1 0\n` });
      await exited;
    } finally {
      old.kill('SIGKILL');
    }
  });

  it('GCPATCH_DRIVER_SERVICE=0 or GIT_CONFIG_COUNT: nothing of the service runs, whatever the marker and pid say', () => {
    for (const env of [{ GCPATCH_DRIVER_SERVICE: '0' }, { GIT_CONFIG_COUNT: '0' }] as Record<string, string>[]) {
      rmSync(folder, { recursive: true, force: true });
      writeMarker(`${ppid} 1 0\n`);
      writePid(deadPid());
      expect(files(3, env)).toEqual({ started: [], markers: Array(3).fill(`${ppid} 1 0\n`) });
    }
  });

  it('git config gcpatch.driverService false: no service and no pid file, so there is never a death to count', () => {
    const { started, markers } = files(6, { GIT_CONFIG_GLOBAL: configFalse });
    expect(started).toEqual([]);
    expect(markers).toEqual(Array(6).fill(`${ppid}\n`));
    expect(existsSync(pidFile)).toBe(false);
  });
});
