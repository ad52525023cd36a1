// End-to-end: the warm merge service behind the installed driver line, with real git. Every case
// ends with the right merge (or markers), exit 0 or 1, no stray file in the work tree and no stray
// process: at most the case's own service runs, and it stops on SIGTERM (the idle exit has its own case).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { doctorDriver, installDriver, uninstallDriver } from '../../src/driver-setup/index.js';
import { readPid, serviceFolder } from '../../src/driver-service/lifecycle.js';
import { commit, git, initRepo, tmp } from '../driver/helpers.js';
import { FAULT_PRELOAD, faultEnv } from '../helpers/cli.js';
import { BASE, C_OURS, C_THEIRS, MERGED, OURS, THEIRS } from '../driver-service/cases.js';
import { useTempHome } from '../helpers/home.js';

useTempHome({ noGlobalGitConfig: true });

/**
 * Every git run of these tests: a one-second bound on the hand-over. The idle time comes from git
 * config `gcpatch.driverServiceIdleSeconds` ({@link scenario}): long, so that a service started for
 * a case stays for it on a loaded machine; the idle exit has its own case.
 */
const ENV = { GCPATCH_DRIVER_SERVICE_WAIT: '1' };
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** Polls `cond` every 25 ms until it holds or `ms` pass (an event wait with a generous cap). */
function waitFor(cond: () => boolean, ms = 15_000): boolean {
  for (const end = Date.now() + ms; Date.now() < end; pause(25)) if (cond()) return true;
  return cond();
}

let root = '';
let current: Scenario | undefined;
afterEach(() => {
  // Nothing stray may stay (watchdog sleeps end within the 1 s wait; a second service, an old one):
  // at most the case's own service, which is then stopped (SIGTERM, as `driver uninstall` does).
  const own = (): number | undefined => (current === undefined ? undefined : running(current));
  const settled = waitFor(() => leftovers(root).every((p) => p.pid === own()));
  const stray = leftovers(root).filter((p) => p.pid !== own());
  const pid = own();
  if (pid !== undefined) process.kill(pid, 'SIGTERM');
  const stopped = pid === undefined || waitFor(() => !isAlive(pid));
  const left = leftovers(root);
  for (const p of left) spawnSync('kill', ['-9', String(p.pid)]);
  spawnSync('chattr', ['-R', '-i', root], { stdio: 'ignore' });
  spawnSync('chmod', ['-R', 'u+rwx', root], { stdio: 'ignore' });
  rmSync(root, { recursive: true, force: true });
  current = undefined;
  expectNothingStray({ stray, settled, stopped, left });
});

/** What a case left, as the hook after it found it: nothing stray, all settled and stopped, nothing left to kill. */
function expectNothingStray(found: { stray: unknown[]; settled: boolean; stopped: boolean; left: unknown[] }): void {
  expect(found).toEqual({ stray: [], settled: true, stopped: true, left: [] });
}

/** Whether process `pid` exists and is not a zombie (children of this test are reaped only when its event loop runs). */
function isAlive(pid: number): boolean {
  try {
    return /State:\s+(\S)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] !== 'Z';
  } catch {
    return false;
  }
}

/** Processes whose working directory is under `dir` (the service and the line's `sleep` start in the work tree). */
function leftovers(dir: string): { pid: number; args: string }[] {
  if (dir === '') return [];
  const out: { pid: number; args: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      if (!readlinkSync(`/proc/${name}/cwd`).startsWith(dir)) continue;
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = /State:\s+(\S)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (state !== 'Z') out.push({ pid: Number(name), args });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

interface Scenario {
  repo: string;
  folder: string;
  ours: string;
  files: string[];
}

/**
 * A repository with the driver installed, `n` clean files and optionally one conflicting `c.gc`
 * (merged first: git goes in path order), merged from `feature`; services exit after `idleSeconds`.
 */
function scenario(n = 1, conflict = false, idleSeconds = 60): Scenario {
  root = tmp('gcpatch-service-');
  const repo = join(root, 'repo');
  mkdirSync(repo);
  initRepo(repo);
  git(repo, ['config', 'gcpatch.driverServiceIdleSeconds', String(idleSeconds)]);
  installDriver({ cwd: repo });
  const files = Array.from({ length: n }, (_, i) => `m${i}.gc`);
  const all = (text: string): Record<string, string> => Object.fromEntries(files.map((f) => [f, text]));
  commit(repo, { ...all(BASE), ...(conflict ? { 'c.gc': BASE } : {}) }, 'base');
  git(repo, ['checkout', '-q', '-b', 'feature']);
  commit(repo, { ...all(THEIRS), ...(conflict ? { 'c.gc': C_THEIRS } : {}) }, 'theirs');
  git(repo, ['checkout', '-q', 'main']);
  commit(repo, { ...all(OURS), ...(conflict ? { 'c.gc': C_OURS } : {}) }, 'ours');
  current = { repo, folder: serviceFolder(join(repo, '.git')), ours: git(repo, ['rev-parse', 'HEAD']).stdout.trim(), files };
  return current;
}

function merge(s: Scenario, env: Record<string, string> = {}, cwd = s.repo): { status: number; stderr: string } {
  const r = git(cwd, ['merge', '--no-edit', 'feature'], { ...ENV, ...env });
  return { status: r.status, stderr: r.stderr };
}

/**
 * A merge where the hand-over may wait up to 60 s (`GCPATCH_DRIVER_SERVICE_WAIT=60`) but git is
 * killed after 30 s: a merge that ends in time did not wait on a service that was not coming.
 * `PATH` starts with shims of `mkfifo` and `sleep` that log their arguments to `<root>/shims.log`
 * (a reply FIFO `r.<n>` is made only by a hand-over), then run the real ones.
 */
function cappedMerge(s: Scenario, env: Record<string, string> = {}): { status: number; stderr: string; shims: string[] } {
  const bin = join(root, 'shims');
  const log = join(root, 'shims.log');
  if (!existsSync(bin)) {
    mkdirSync(bin);
    for (const tool of ['mkfifo', 'sleep']) {
      const real = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      writeFileSync(join(bin, tool), `#!/bin/sh\necho ${tool} "$@" >>'${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    }
  }
  rmSync(log, { force: true });
  const r = spawnSync('git', ['merge', '--no-edit', 'feature'], {
    cwd: s.repo,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GCPATCH_DRIVER_SERVICE_WAIT: '60', PATH: `${bin}:${process.env.PATH}`, ...env },
  });
  return {
    status: r.status ?? -1,
    stderr: r.stderr,
    shims: existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      : [],
  };
}

/** Waits until no process runs in the case's folder but the case's own service (the line's background shells have ended). */
function settle(s: Scenario, besides: number[] = []): boolean {
  return waitFor(() => leftovers(root).every((p) => p.pid === running(s) || besides.includes(p.pid)));
}

function reset(s: Scenario, cwd = s.repo): void {
  git(cwd, ['merge', '--abort']);
  git(cwd, ['reset', '-q', '--hard', s.ours]);
}

/** The merge is right: every clean file merged structurally, nothing else in the work tree. */
function expectMerged(s: Scenario, cwd = s.repo): void {
  for (const f of s.files) expect(readFileSync(join(cwd, f), 'utf8')).toBe(MERGED);
  // No stray file (a `.merge_file_*.gcpatch` result, a temporary file): nothing untracked or ignored.
  expect(
    git(cwd, ['status', '--porcelain', '--ignored'])
      .stdout.split('\n')
      .filter((l) => l.startsWith('??') || l.startsWith('!!')),
  ).toEqual([]);
}

/** The running service of `s` (its pid once `info` is written), or undefined. */
function running(s: Scenario): number | undefined {
  const pid = readPid(s.folder);
  return pid !== undefined && isAlive(pid) && existsSync(join(s.folder, 'info')) ? pid : undefined;
}

/**
 * Starts a service for `s` as the line does (folder 0700, `requests` FIFO, `pid` file), from the
 * driver in `driverDir` (default: the installed one) speaking `version`, and waits until it is ready.
 * With `fault`, the service runs the test preload and takes that fault (test/helpers/fault-preload.cjs).
 */
function warm(s: Scenario, driverDir = join(s.repo, '.git', 'gcpatch', 'driver'), version = '0.1.0', fault?: string): number {
  mkdirSync(s.folder, { recursive: true, mode: 0o700 });
  if (!existsSync(join(s.folder, 'requests'))) spawnSync('mkfifo', ['-m', '600', join(s.folder, 'requests')]);
  const env = fault === undefined ? process.env : { ...process.env, GCPATCH_TEST_FAULT: fault };
  const preload = fault === undefined ? [] : ['--require', FAULT_PRELOAD];
  const child = spawn(process.execPath, [...preload, join(driverDir, 'launch.cjs'), '--serve', s.folder, version], {
    cwd: s.repo,
    stdio: 'ignore',
    detached: true,
    env,
  });
  writeFileSync(join(s.folder, 'pid'), `${child.pid}\n`, { mode: 0o600 });
  child.unref();
  expect(waitFor(() => running(s) === child.pid)).toBe(true);
  return child.pid!;
}

/**
 * The direct driver's result of a conflicting scenario (`c.gc` and git's stderr), merged with the
 * service off once per number of files for all cases; call it before the case's own merge.
 */
const references = new Map<number, { bytes: Buffer; stderr: string }>();
function direct(s: Scenario): { bytes: Buffer; stderr: string } {
  let ref = references.get(s.files.length);
  if (ref === undefined) {
    const r = merge(s, { GCPATCH_DRIVER_SERVICE: '0' });
    expect(r.status).toBe(1);
    ref = { bytes: readFileSync(join(s.repo, 'c.gc')), stderr: r.stderr };
    references.set(s.files.length, ref);
    reset(s);
  }
  return ref;
}

describe('the warm merge service', () => {
  it("a burst: its second file starts it; later files and merges go through it, with the direct driver's bytes and messages", () => {
    const s = scenario(3, true);
    const ref = direct(s);
    const cold = merge(s);
    expect(cold.status).toBe(1);
    const first = readFileSync(join(s.repo, 'c.gc'));
    expect(first).toEqual(ref.bytes);
    expect(cold.stderr).toBe(ref.stderr);
    expectMerged(s);
    expect(waitFor(() => running(s) !== undefined)).toBe(true);
    for (const [file, mode] of [
      [s.folder, 0o700],
      [join(s.folder, 'pid'), 0o600],
      [join(s.folder, 'info'), 0o600],
      [join(s.folder, 'requests'), 0o600],
      [join(s.folder, 'burst'), 0o600],
    ] as const) {
      expect((statSync(file).mode & 0o777).toString(8), file).toBe(mode.toString(8));
    }
    const info = JSON.parse(readFileSync(join(s.folder, 'info'), 'utf8'));
    expect(info).toMatchObject({ pid: running(s), version: '0.1.0', idleMs: 60_000 });
    reset(s);
    // The test fault `crash` makes the direct driver crash (line merge, markers): through the
    // service (started without the preload), every file merges structurally.
    const warmRun = merge(s, faultEnv('crash'));
    expect(warmRun.status).toBe(1);
    expectMerged(s);
    expect(readFileSync(join(s.repo, 'c.gc'))).toEqual(first);
    expect(warmRun.stderr).toBe(cold.stderr);
    expect(warmRun.stderr).toMatch(/^gcpatch: c\.gc: conflict in \(def app\/m::c/m);
    const d = doctorDriver({ cwd: s.repo });
    expect(d.checks.find((c) => c.name === 'service')?.message).toMatch(
      /^merge service running \(pid \d+, gcpatch 0\.1\.0, exits after 60 s idle\); folder .*gcpatch\/service$/,
    );
    expect(d.checks.find((c) => c.name === 'runs:gcpatch:service')).toMatchObject({ level: 'ok' });
    // uninstall stops it and removes its folder.
    const pid = running(s)!;
    const u = uninstallDriver({ cwd: s.repo });
    expect(u.service).toEqual({ folder: s.folder, stopped: pid });
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(s.folder)).toBe(false);
  });

  it("a merge of one file only marks the burst (the git process's pid): nothing is started", () => {
    const s = scenario(1);
    const r = merge(s);
    expect(r).toEqual({ status: 0, stderr: expect.not.stringMatching(/gcpatch/) });
    expectMerged(s);
    const marker = readFileSync(join(s.folder, 'burst'), 'utf8');
    expect(marker).toMatch(/^[0-9]+\n$/);
    expect(isAlive(Number(marker))).toBe(false); // that git has exited
    expect(readdirSync(s.folder).sort()).toEqual(['burst']);
  });

  it('exits after its idle time (git config gcpatch.driverServiceIdleSeconds) and removes its pid and info', () => {
    const s = scenario(2, false, 2);
    expect(merge(s).status).toBe(0);
    // The service may start and idle out between two looks on a loaded machine: its pid file is
    // written before it runs (the pid is known at once), its info while it runs.
    let pid: number | undefined;
    let info: { idleMs?: number } | undefined;
    expect(
      waitFor(() => {
        pid ??= readPid(s.folder);
        try {
          info ??= JSON.parse(readFileSync(join(s.folder, 'info'), 'utf8'));
        } catch {
          // Not yet, or gone already.
        }
        return pid !== undefined && (info !== undefined || !isAlive(pid));
      }),
    ).toBe(true);
    expect(info?.idleMs).toBe(2000);
    expect(waitFor(() => !isAlive(pid!), 60_000)).toBe(true);
    expect(readdirSync(s.folder).sort()).toEqual(['burst', 'requests']);
  });

  it('killed before a request (kill -9 while idle): the next merge is direct and its second file starts a new one', () => {
    const s = scenario(2);
    const pid = warm(s);
    process.kill(pid, 'SIGKILL');
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    expect(readPid(s.folder)).toBe(pid); // a pid file naming a dead process
    const r = merge(s);
    expect(r).toEqual({ status: 0, stderr: expect.not.stringMatching(/gcpatch/) });
    expectMerged(s);
    expect(waitFor(() => running(s) !== undefined && running(s) !== pid)).toBe(true);
    // The second file found the death, the burst's first: counted in the marker, restarted at once.
    expect(readFileSync(join(s.folder, 'burst'), 'utf8')).toMatch(/^[0-9]+ 1 0\n$/);
    // The stale info was removed with the stale pid; the new service wrote its own.
    expect(waitFor(() => JSON.parse(readFileSync(join(s.folder, 'info'), 'utf8')).pid === readPid(s.folder))).toBe(true);
  });

  it('killed with a request waiting (SIGKILL before it accepts): detected at once, no 60 s wait', () => {
    const s = scenario(2);
    const pid = warm(s, undefined, undefined, 'service-kill-before-accept');
    const r = cappedMerge(s);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expectMerged(s);
    expect(isAlive(pid)).toBe(false);
    // The first file handed over (its reply FIFO) and found the service dead.
    expect(r.shims.filter((l) => /^mkfifo .*\/r\.[0-9]+$/.test(l)).length).toBe(1);
    expect(settle(s)).toBe(true);
  });

  it('killed at every request of a 40-file merge: every file merges directly, and the restarts back off instead of one per file', () => {
    const s = scenario(40);
    // A `node` shim first on PATH logs the pid of every service start (`--serve`), then becomes
    // the real node (the same process: the `pid` file names it).
    const bin = join(root, 'node-shim');
    const log = join(root, 'serve.log');
    mkdirSync(bin);
    writeFileSync(join(bin, 'node'), `#!/bin/sh\ncase " $* " in *" --serve "*) echo $$ >>'${log}';; esac\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    // Every service started (the line's environment: the preload and the fault) SIGKILLs itself
    // when it reads its first request, before it accepts it.
    const r = merge(s, { ...faultEnv('service-kill-before-accept'), PATH: `${bin}:${process.env.PATH}` });
    expect(r).toEqual({ status: 0, stderr: expect.not.stringMatching(/gcpatch/) });
    expectMerged(s);
    const started = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    // RESTART_BACK_OFF (src/driver-service/line.ts): starts at files 2, 3, 5, 10 and 27
    // (test/driver-service/restart-back-off.test.ts), or a file later each when a service is slow
    // to write its pid; a restart per file would be 39.
    expect(started.length).toBeGreaterThanOrEqual(4);
    expect(started.length).toBeLessThanOrEqual(8);
    expect(new Set(started).size).toBe(started.length);
    // At least four deaths: the marker reached the last back-off entry.
    expect(readFileSync(join(s.folder, 'burst'), 'utf8')).toMatch(/^[0-9]+ 4 [0-9]+\n$/);
    expect(settle(s)).toBe(true);
  });

  it('stopped (SIGSTOP) or a zombie: kill -0 still succeeds, the line sees the state and merges directly at once', () => {
    const s = scenario(2);
    const stopped = warm(s);
    process.kill(stopped, 'SIGSTOP');
    try {
      const r = cappedMerge(s);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expectMerged(s);
      expect(r.shims.filter((l) => /^mkfifo .*\/r\.[0-9]+$/.test(l))).toEqual([]);
      // Its pid file was replaced: a new service runs.
      expect(waitFor(() => running(s) !== undefined && running(s) !== stopped)).toBe(true);
    } finally {
      process.kill(stopped, 'SIGKILL');
    }
    expect(waitFor(() => !isAlive(stopped))).toBe(true);
    const fresh = running(s)!;
    process.kill(fresh, 'SIGTERM');
    expect(waitFor(() => !isAlive(fresh))).toBe(true);
    reset(s);
    // A zombie: a service whose parent never reaps it (a shell that became `sleep`), killed.
    const launch = join(s.repo, '.git', 'gcpatch', 'driver', 'launch.cjs');
    const holder = spawn('sh', ['-c', `"$0" "$1" --serve "$2" 0.1.0 & echo $! >"$2/pid"; exec sleep 120`, process.execPath, launch, s.folder], {
      cwd: s.repo,
      stdio: 'ignore',
    });
    try {
      expect(waitFor(() => running(s) !== undefined && readPid(s.folder) !== fresh)).toBe(true);
      const zombie = readPid(s.folder)!;
      process.kill(zombie, 'SIGKILL');
      expect(waitFor(() => /State:\s+Z/.test(readFileSync(`/proc/${zombie}/status`, 'utf8')))).toBe(true);
      const r = cappedMerge(s);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expectMerged(s);
      expect(r.shims.filter((l) => /^mkfifo .*\/r\.[0-9]+$/.test(l))).toEqual([]);
      expect(waitFor(() => running(s) !== undefined && running(s) !== zombie)).toBe(true);
    } finally {
      holder.kill('SIGKILL');
    }
    expect(waitFor(() => !isAlive(holder.pid!))).toBe(true);
  });

  it('the folder turns read-only mid-hand-over and the "service" dies: no shell message (rm, sh) reaches git\'s output', () => {
    const s = scenario(2);
    const pid = warm(s);
    process.kill(pid, 'SIGTERM');
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    // A stand-in service: takes the first token, locks the folder (immutable for root, 0500
    // otherwise) and dies without answering. The line then cannot remove q.<n>, r.<n> or pid.
    const lock = process.getuid?.() === 0 ? 'chattr +i "$1"' : 'chmod 500 "$1"';
    const fake = spawn('sh', ['-c', `read -r t <"$1/requests"; ${lock}`, 'sh', s.folder], { cwd: root, stdio: 'ignore' });
    writeFileSync(join(s.folder, 'pid'), `${fake.pid}\n`, { mode: 0o600 });
    try {
      const r = cappedMerge(s);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expectMerged(s);
      expect(r.shims.filter((l) => /^mkfifo .*\/r\.[0-9]+$/.test(l)).length).toBe(1);
      expect(waitFor(() => !isAlive(fake.pid!))).toBe(true);
    } finally {
      spawnSync('chattr', ['-i', s.folder]);
      spawnSync('chmod', ['700', s.folder]);
      fake.kill('SIGKILL');
    }
  });

  for (const point of ['before-accept', 'after-accept', 'after-merge', 'after-status', 'after-rename'] as const) {
    it(`killed during a request (SIGKILL ${point}): every file still merges, nothing is left in the work tree`, () => {
      const s = scenario(1, true);
      const ref = direct(s);
      const pid = warm(s, undefined, undefined, `service-kill-${point}`);
      const r = merge(s);
      expect(r.status).toBe(1);
      expect(isAlive(pid)).toBe(false);
      expectMerged(s);
      expect(readFileSync(join(s.repo, 'c.gc'))).toEqual(ref.bytes);
      expect(r.stderr).toBe(ref.stderr);
      expect(readdirSync(s.folder).filter((f) => /^[qr]\.|\.gcpatch$/.test(f))).toEqual([]);
    });
  }

  it('killed after a request: the next merge is direct', () => {
    const s = scenario(1);
    const pid = warm(s);
    expect(merge(s).status).toBe(0);
    expectMerged(s);
    reset(s);
    process.kill(pid, 'SIGKILL');
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    expect(merge(s).status).toBe(0);
    expectMerged(s);
  });

  it('a service of another gcpatch version answers stale and exits; the merge is direct; a current one takes over', () => {
    const s = scenario(2);
    // An "old" driver: the same bundle with another version inside.
    const old = join(root, 'old');
    mkdirSync(old);
    const installed = join(s.repo, '.git', 'gcpatch', 'driver');
    copyFileSync(join(installed, 'launch.cjs'), join(old, 'launch.cjs'));
    const bundle = readFileSync(join(installed, 'index.js'), 'latin1');
    // The bundle holds the version once, as src/util/version.ts's constant.
    expect(bundle.split('"0.1.0"').length - 1).toBe(1);
    writeFileSync(join(old, 'index.js'), bundle.replace('"0.1.0"', '"0.0.9"'), 'latin1');
    const pid = warm(s, old, '0.0.9');
    expect(JSON.parse(readFileSync(join(s.folder, 'info'), 'utf8')).version).toBe('0.0.9');
    const r = merge(s, {});
    expect(r.status).toBe(0);
    expectMerged(s);
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    expect(waitFor(() => running(s) !== undefined)).toBe(true);
    expect(JSON.parse(readFileSync(join(s.folder, 'info'), 'utf8')).version).toBe('0.1.0');
  });

  it('a reinstall stops the service of the old bundle', () => {
    const s = scenario(1);
    const pid = warm(s);
    const r = installDriver({ cwd: s.repo });
    expect(r.service).toMatchObject({ folder: s.folder, version: '0.1.0', stopped: pid });
    expect(isAlive(pid)).toBe(false);
    expect(merge(s).status).toBe(0);
    expectMerged(s);
  });

  it('two worktrees of one repository merge at once through one service, each with its own conflict style', async () => {
    const s = scenario(3, true);
    const second = join(root, 'second');
    git(s.repo, ['branch', 'ours2', s.ours]);
    expect(git(s.repo, ['worktree', 'add', '-q', second, 'ours2']).status).toBe(0);
    git(second, ['config', 'merge.conflictStyle', 'merge']);
    const plain = direct(s).bytes;
    const diff3 = (() => {
      const r = git(second, ['-c', 'merge.conflictStyle=diff3', 'merge', '--no-edit', 'feature'], { ...ENV, GCPATCH_DRIVER_SERVICE: '0' });
      expect(r.status).toBe(1);
      return readFileSync(join(second, 'c.gc'));
    })();
    expect(diff3.toString()).toContain('|||||||');
    expect(plain.toString()).not.toContain('|||||||');
    reset(s, second);
    const pid = warm(s);
    const run = (cwd: string, args: string[]): Promise<number> =>
      new Promise((done) => {
        const child = spawn('git', [...args, 'merge', '--no-edit', 'feature'], {
          cwd,
          stdio: 'ignore',
          env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...ENV, ...faultEnv('crash') },
        });
        child.on('exit', (code) => done(code ?? -1));
      });
    const [a, b] = await Promise.all([run(s.repo, []), run(second, ['-c', 'merge.conflictStyle=diff3'])]);
    expect([a, b]).toEqual([1, 1]);
    expectMerged(s);
    expectMerged(s, second);
    expect(readFileSync(join(s.repo, 'c.gc'))).toEqual(plain);
    expect(readFileSync(join(second, 'c.gc'))).toEqual(diff3);
    expect(running(s)).toBe(pid); // one service served both
  });

  it('an unwritable service folder: merges are direct and nothing is started or written', () => {
    const s = scenario(2);
    const pid = warm(s);
    process.kill(pid, 'SIGTERM');
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    const before = readdirSync(s.folder).sort();
    // root ignores mode bits: make the folder immutable instead.
    const locked = process.getuid?.() === 0 ? spawnSync('chattr', ['+i', s.folder]).status === 0 : (spawnSync('chmod', ['500', s.folder]), true);
    expect(locked).toBe(true);
    try {
      const r = merge(s);
      expect(r.status).toBe(0);
      expect(r.stderr).not.toMatch(/gcpatch/);
      expectMerged(s);
      expect(readdirSync(s.folder).sort()).toEqual(before);
    } finally {
      spawnSync('chattr', ['-i', s.folder]);
      spawnSync('chmod', ['700', s.folder]);
    }
  });

  it('a reply that never comes: the line stops waiting, merges directly; the service then finds no reader', () => {
    const s = scenario(1);
    const pid = warm(s, undefined, undefined, 'service-stall-before-accept');
    const r = merge(s);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/gcpatch/);
    expectMerged(s);
    expect(readdirSync(s.folder).filter((f) => /^[qr]\./.test(f))).toEqual([]);
    // It gave up its pid file (the line removed it); it exits after the stall.
    expect(waitFor(() => !isAlive(pid))).toBe(true);
  });

  it('a requests FIFO without a reader (the pid file names a live process that is no service): one bounded wait, then direct', () => {
    const s = scenario(2);
    const pid = warm(s);
    process.kill(pid, 'SIGTERM');
    expect(waitFor(() => !isAlive(pid))).toBe(true);
    const impostor = spawn('sleep', ['30'], { cwd: root, stdio: 'ignore' });
    writeFileSync(join(s.folder, 'pid'), `${impostor.pid}\n`, { mode: 0o600 });
    try {
      const r = merge(s);
      expect(r.status).toBe(0);
      expectMerged(s);
      expect(readPid(s.folder)).not.toBe(impostor.pid);
      expect(isAlive(impostor.pid!)).toBe(true); // never signalled
    } finally {
      impostor.kill('SIGKILL');
    }
    expect(waitFor(() => !isAlive(impostor.pid!))).toBe(true);
  });

  it('switched off by GCPATCH_DRIVER_SERVICE=0 or git config gcpatch.driverService false: nothing is started, no file waits, no pid file', () => {
    const s = scenario(8);
    const env = cappedMerge(s, { GCPATCH_DRIVER_SERVICE: '0' });
    expect(env).toEqual({ status: 0, stderr: '', shims: [] });
    expectMerged(s);
    expect(existsSync(join(s.folder, 'pid'))).toBe(false);
    expect(existsSync(join(s.folder, 'burst'))).toBe(false);
    reset(s);
    git(s.repo, ['config', 'gcpatch.driverService', 'false']);
    const config = cappedMerge(s);
    expect(config.status).toBe(0);
    expect(config.stderr).toBe('');
    expectMerged(s);
    // No hand-over was ever tried (no reply FIFO), nothing slept; the background shells read the
    // config and ended without writing a pid file.
    expect(config.shims.filter((l) => !/^mkfifo -m 600 .*\/requests$/.test(l))).toEqual([]);
    expect(settle(s)).toBe(true);
    expect(running(s)).toBeUndefined();
    expect(readdirSync(s.folder).sort()).toEqual(['burst', 'requests']);
    expect(doctorDriver({ cwd: s.repo }).checks.find((c) => c.name === 'service')?.message).toMatch(
      /^merge service off \(git config gcpatch\.driverService false/,
    );
  });
});
