/** The warm merge service's life seen from outside: its folder, whether it runs, its idle time, stopping it. */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../git/exec.js';
import { DEFAULT_IDLE_MS, SERVICE_FILES, type ServiceInfo } from './protocol.js';

/** The service folder of a repository: `<git common dir>/gcpatch/service` (worktrees share it). */
export function serviceFolder(commonDir: string): string {
  return join(commonDir, 'gcpatch', 'service');
}

/**
 * Whether `folder` is a directory owned by this user that nobody else can enter (mode 0700: no
 * group or other bits). The service refuses any other folder; the line creates it with `mkdir -m 700`.
 * With `repair`, a folder of ours with group or other bits is first set back to 0700.
 */
export function isPrivateFolder(folder: string, repair = false): boolean {
  try {
    const st = lstatSync(folder);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) return false;
    if ((st.mode & 0o077) !== 0 && repair) chmodSync(folder, 0o700);
    return (lstatSync(folder).mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The process id in `<folder>/pid`, or undefined when there is none or it is not a number. */
export function readPid(folder: string): number | undefined {
  try {
    const text = readFileSync(join(folder, SERVICE_FILES.pid), 'utf8').trim();
    return /^[0-9]{1,10}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process `pid` exists that this user may signal (the line's `kill -0`; another user's process counts as none). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The command line of process `pid` (`ps -o args=`), or undefined when it does not exist. */
function commandLine(pid: number): string | undefined {
  const r = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', timeout: 10_000 });
  const text = (r.stdout ?? '').trim();
  return r.status === 0 && text !== '' ? text : undefined;
}

/** What `gcpatch driver doctor` reports about the service of one repository. */
export interface ServiceStatus {
  folder: string;
  /** The folder exists and is private (0700, ours). */
  folderOk: boolean;
  /** A service process of this folder is running. */
  running: boolean;
  pid: number | undefined;
  /** From the running service's `info` file. */
  info: ServiceInfo | undefined;
}

function readInfo(folder: string): ServiceInfo | undefined {
  try {
    return JSON.parse(readFileSync(join(folder, SERVICE_FILES.info), 'utf8')) as ServiceInfo;
  } catch {
    return undefined;
  }
}

/**
 * The pid of the service serving `folder`, when one runs: the `pid` file names a live process whose
 * command line is `… launch.cjs --serve <folder> …` (a pid the system gave to another program since
 * is not signalled).
 */
function servicePid(folder: string): number | undefined {
  const pid = readPid(folder);
  if (pid === undefined || !isAlive(pid)) return undefined;
  const args = commandLine(pid);
  return args !== undefined && args.includes('--serve') ? pid : undefined;
}

/** The state of the service of `folder` ({@link ServiceStatus}); reads files and `ps`, changes nothing. */
export function serviceStatus(folder: string): ServiceStatus {
  const pid = servicePid(folder);
  const info = pid === undefined ? undefined : readInfo(folder);
  return { folder, folderOk: isPrivateFolder(folder), running: pid !== undefined, pid, info: info?.pid === pid ? info : undefined };
}

/**
 * Stops the service of `folder` if one runs: SIGTERM (it removes its `pid` and `info` and exits),
 * then, if it is still there after 2 s, SIGKILL. With `remove`, deletes the folder afterwards.
 * @returns the pid that was stopped, or undefined when none ran.
 */
export function stopService(folder: string, remove = false): number | undefined {
  const pid = servicePid(folder);
  if (pid !== undefined) {
    const pause = new Int32Array(new SharedArrayBuffer(4));
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
    for (let i = 0; i < 200 && isAlive(pid); i++) Atomics.wait(pause, 0, 0, 10);
    if (isAlive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
  if (remove && existsSync(folder)) rmSync(folder, { recursive: true, force: true });
  return pid;
}

/**
 * The idle time (ms) after which a service exits: `GCPATCH_DRIVER_SERVICE_IDLE_MS` when set to a
 * non-negative integer, else git config `gcpatch.driverServiceIdleSeconds` read in `cwd`, else
 * {@link DEFAULT_IDLE_MS}.
 */
export function idleMs(env: NodeJS.ProcessEnv = process.env, cwd?: string): number {
  const fromEnv = env.GCPATCH_DRIVER_SERVICE_IDLE_MS;
  if (fromEnv !== undefined && /^[0-9]{1,9}$/.test(fromEnv)) return Number(fromEnv);
  const text = runGit(['config', '--get', 'gcpatch.driverServiceIdleSeconds'], { cwd }).stdout.trim();
  return /^[0-9]{1,6}(\.[0-9]+)?$/.test(text) ? Math.round(Number(text) * 1000) : DEFAULT_IDLE_MS;
}
