/** The warm merge service's process: reads request tokens from its FIFO, serves them one by one, exits when idle or replaced. */
import { constants, openSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { idleMs, isPrivateFolder, readPid } from './lifecycle.js';
import { SERVICE_FILES, type ServiceInfo } from './protocol.js';
import { serveRequest } from './request.js';

/** Options of {@link runService}. */
export interface ServiceOptions {
  /** The service folder (`<git common dir>/gcpatch/service`), as the line passed it. */
  folder: string;
  /** The version the line that started it was installed with. */
  version: string;
  /** The gcpatch version of this code. */
  ownVersion: string;
  /** The driver bundle this process runs; a request after it changed on disk is answered stale. */
  bundle: string;
}

/** How often (ms, at most) the service checks that it is still the folder's service and its bundle is unchanged. */
const CHECK_MS = 1000;
/** After it gave up its `pid` file, the service still serves tokens that arrive within this time (ms). */
const GRACE_MS = 50;

function identity(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/**
 * Runs the service of `folder` until it is idle for {@link idleMs}, receives SIGTERM/SIGINT/SIGHUP,
 * loses its `pid` file (another service, `driver uninstall`), its bundle changes on disk, or a
 * request of another version arrives (docs/driver.md "The warm merge service"). Refuses (exit 1,
 * nothing written) a folder that is not ours (one of ours with group or other bits is set to 0700), a line of another version, or a
 * `pid` file that does not name this process within 1 s (another starter won); a refusal removes a
 * `pid` file naming this process. On the way out it removes `pid` and `info` if they are still its
 * own; the `requests` FIFO stays for the next one.
 */
export function runService(opts: ServiceOptions): void {
  const folder = resolve(opts.folder);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  if (!isPrivateFolder(folder, true)) process.exit(1);
  // A refusal after this point removes the `pid` file that names this process: no stale pid stays.
  function refuse(): never {
    if (readPid(folder) === process.pid) rmSync(join(folder, SERVICE_FILES.pid), { force: true });
    process.exit(1);
  }
  if (opts.version !== opts.ownVersion) refuse();
  for (let i = 0; readPid(folder) !== process.pid; i++) {
    if (i >= 100) process.exit(1);
    Atomics.wait(pause, 0, 0, 10);
  }
  let bundleId: string;
  let fd: number;
  const requests = join(folder, SERVICE_FILES.requests);
  try {
    bundleId = identity(statSync(opts.bundle));
    const st = statSync(requests);
    if (!st.isFIFO() || (st.mode & 0o077) !== 0) refuse();
    fd = openSync(requests, constants.O_RDWR | constants.O_NONBLOCK);
  } catch {
    refuse();
  }
  const idle = idleMs(process.env);
  const current = (): boolean => {
    try {
      return identity(statSync(opts.bundle)) === bundleId;
    } catch {
      return false;
    }
  };
  const owned = (): boolean => readPid(folder) === process.pid;
  const release = (): void => {
    if (!owned()) return;
    rmSync(join(folder, SERVICE_FILES.info), { force: true });
    rmSync(join(folder, SERVICE_FILES.pid), { force: true });
  };
  process.on('exit', release);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => process.exit(0));

  const info: ServiceInfo = { pid: process.pid, version: opts.ownVersion, started: new Date().toISOString(), idleMs: idle, bundle: opts.bundle };
  const infoTmp = join(folder, `.info.${process.pid}`);
  writeFileSync(infoTmp, JSON.stringify(info) + '\n', { mode: 0o600 });
  renameSync(infoTmp, join(folder, SERVICE_FILES.info));

  let closing = false;
  let lastRequest = Date.now();
  const close = (): void => {
    if (closing) return;
    closing = true;
    release();
    setTimeout(() => process.exit(0), GRACE_MS);
  };
  let pending = '';
  const socket = new Socket({ fd, readable: true, writable: false });
  socket.setEncoding('utf8');
  socket.on('error', () => process.exit(1));
  socket.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const token of lines) {
      if (token === '') continue;
      const outcome = serveRequest(folder, token, { version: opts.ownVersion, current });
      lastRequest = Date.now();
      if (outcome === 'stale') close();
    }
  });
  const tick = (): void => {
    if (closing) return;
    if (!owned() || !current() || Date.now() - lastRequest >= idle) {
      close();
      return;
    }
    setTimeout(tick, Math.max(1, Math.min(CHECK_MS, idle - (Date.now() - lastRequest))));
  };
  setTimeout(tick, Math.min(CHECK_MS, idle));
}
