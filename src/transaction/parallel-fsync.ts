/**
 * Many fsyncs (or unlinks) at once from synchronous code: a helper thread issues them concurrently
 * (through libuv's thread pool) while the calling thread waits on a shared flag. Concurrent fsyncs
 * on one filesystem share journal commits, so N files cost far less than N sequential fsyncs; the
 * freeing of unlinked inodes overlaps too.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** The helper thread: fsyncs descriptors or unlinks paths, at most 16 in flight, and reports the failures. */
const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { fsync, unlink } = require('node:fs');
let current;
process.on('exit', () => {
  if (current !== undefined && Atomics.load(current, 0) === 0) {
    Atomics.store(current, 0, 2);
    Atomics.notify(current, 0);
  }
});
parentPort.on('message', ({ op, fds, flag, port }) => {
  current = flag;
  const failures = [];
  let next = 0;
  let running = 0;
  const done = () => {
    if (failures.length > 0) port.postMessage(failures);
    port.close();
    Atomics.store(flag, 0, failures.length > 0 ? 3 : 1);
    Atomics.notify(flag, 0);
  };
  const launch = () => {
    while (running < 16 && next < fds.length) {
      const index = next++;
      running++;
      (op === 'unlink' ? unlink : fsync)(fds[index], (error) => {
        running--;
        if (error && !(op === 'unlink' && error.code === 'ENOENT')) failures.push({ index, code: error.code, message: error.message });
        if (next < fds.length) launch();
        else if (running === 0) done();
      });
    }
  };
  if (fds.length === 0) done();
  else launch();
});
`;

/** One fsync that failed: the index of its descriptor in the request, and the error. */
export interface FsyncFailure {
  index: number;
  error: NodeJS.ErrnoException;
}

let helper: Worker | undefined;
let helperBroken = false;

/**
 * Starts the helper thread if it is not running (it boots while the caller keeps working).
 * @returns false when no helper can run here (then callers fsync one by one).
 */
export function startFsyncHelper(): boolean {
  if (helper !== undefined) return true;
  if (helperBroken) return false;
  try {
    helper = new Worker(HELPER_SOURCE, { eval: true });
    helper.unref();
    helper.on('error', () => {
      helper = undefined;
      helperBroken = true;
    });
    return true;
  } catch {
    helperBroken = true;
    return false;
  }
}

/**
 * fsyncs every descriptor in `fds` concurrently and returns when all are done.
 * @returns the failures in the order of `fds` (empty when every fsync succeeded), or undefined when the helper thread
 *   is unavailable and nothing was synced (the caller then fsyncs them itself).
 */
export function fsyncConcurrently(fds: readonly number[]): FsyncFailure[] | undefined {
  return runConcurrently('fsync', fds);
}

/**
 * Unlinks every path in `paths` concurrently (a missing one is fine) and returns when all are done.
 * @returns the failures, or undefined when the helper thread is unavailable and nothing was done.
 */
export function unlinkConcurrently(paths: readonly string[]): FsyncFailure[] | undefined {
  return runConcurrently('unlink', paths);
}

function runConcurrently(op: 'fsync' | 'unlink', fds: readonly (number | string)[]): FsyncFailure[] | undefined {
  if (!startFsyncHelper()) return undefined;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  try {
    helper!.postMessage({ op, fds: [...fds], flag, port: port2 }, [port2]);
  } catch {
    port1.close();
    return undefined;
  }
  // 1: all done; 3: done with failures, sent on the port; 2: the helper exited mid-request (its exit handler says so)
  Atomics.wait(flag, 0, 0);
  const state = Atomics.load(flag, 0);
  if (state === 1) {
    port1.close();
    return [];
  }
  let reply: { index: number; code?: string; message: string }[] | undefined;
  // the failures were posted before the flag was set; wait (bounded) for the port to deliver them
  for (let tries = 0; state === 3 && reply === undefined && tries < 1_000; tries++) {
    reply = receiveMessageOnPort(port1)?.message as typeof reply;
    if (reply === undefined) Atomics.wait(flag, 0, 3, 1);
  }
  port1.close();
  if (reply === undefined) {
    if (state === 2) {
      helper = undefined;
      helperBroken = true;
    }
    return undefined; // the caller fsyncs (or unlinks) one by one instead
  }
  // The helper finishes its operations in any order; report them in the order of `fds`.
  return [...reply]
    .sort((a, b) => a.index - b.index)
    .map((f) => ({ index: f.index, error: Object.assign(new Error(f.message), { code: f.code }) as NodeJS.ErrnoException }));
}
