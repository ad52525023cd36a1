/** One request served by the warm merge service: take it, merge as the direct driver would, answer; any failure before the answer leaves %A untouched. */
import { chmodSync, closeSync, constants, copyFileSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDriverArgs } from '../textmerge/driver.js';
import { FORWARDED_ENV, REPLY_ACCEPTED, REPLY_DONE, REPLY_STALE, formatReply, parseRequest, requestPaths, resultPath } from './protocol.js';
import { faultPoint } from '../util/test-fault.js';
import { mergeInvocation } from './run.js';

/** What {@link serveRequest} did with one token. */
export type RequestOutcome = 'merged' | 'stale' | 'skipped';

/** What the service tells {@link serveRequest} about itself. */
export interface ServiceIdentity {
  /** The gcpatch version it runs; a request of another version gets {@link REPLY_STALE}. */
  version: string;
  /** Whether the bundle it runs is still the one on disk (false after an install replaced it). */
  current: () => boolean;
}

/** Whether `path` is what we expect there and only we can reach it: our own file of `kind`, no group/other bits. */
function ours(path: string, kind: 'file' | 'fifo'): boolean {
  try {
    const st = lstatSync(path);
    const uid = process.getuid?.();
    return (kind === 'file' ? st.isFile() : st.isFIFO()) && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Writes all of `text` to the non-blocking `fd`, waiting (≤ 2 s in 1 ms steps) while the FIFO is full. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let done = 0;
  let waits = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || ++waits > 2000) throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** Sets the forwarded environment and working directory of a request; returns what puts them back. */
function enter(cwd: string, env: Record<string, string | undefined>): () => void {
  const savedCwd = process.cwd();
  const savedEnv = FORWARDED_ENV.map((name) => [name, process.env[name]] as const);
  const set = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  process.chdir(cwd); // first: a directory that is gone throws before anything changed
  for (const name of FORWARDED_ENV) set(name, env[name]);
  return () => {
    for (const [name, value] of savedEnv) set(name, value);
    try {
      process.chdir(savedCwd);
    } catch {
      // The folder we came from is gone; the next request sets its own.
    }
  };
}

/**
 * Serves the request of `token` (the client's `$$`) in `folder`, following docs/driver.md "The
 * hand-over": reads and removes `q.<token>`; opens `r.<token>` for writing without blocking (no
 * reader: the line gave up waiting, the request is dropped) and removes its name; answers
 * {@link REPLY_STALE} when the request's version or the bundle on disk is not this service's, else
 * {@link REPLY_ACCEPTED}; then merges a copy of %A (`<%A>.gcpatch`, 0600) with
 * {@link mergeInvocation} in the request's working directory and environment, answers
 * `=<status>` and the messages ({@link formatReply}), renames the copy over %A and answers
 * {@link REPLY_DONE}. A service killed before the status leaves %A as git wrote it (the line
 * removes the copy and merges directly); killed after it, the line knows the status and finds the
 * result either in %A (renamed) or still in the copy (it moves it). Never throws.
 */
export function serveRequest(folder: string, token: string, self: ServiceIdentity): RequestOutcome {
  if (!/^[0-9]{1,10}$/.test(token)) return 'skipped';
  const paths = requestPaths(folder, token);
  let bytes: Buffer;
  try {
    if (!ours(paths.request, 'file')) return 'skipped';
    bytes = readFileSync(paths.request);
  } catch {
    return 'skipped';
  } finally {
    rmSync(paths.request, { force: true });
  }
  const req = parseRequest(bytes);
  if (req) faultPoint('before-accept');
  let fd: number;
  try {
    if (!ours(paths.reply, 'fifo')) return 'skipped';
    fd = openSync(paths.reply, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    return 'skipped'; // ENXIO: nobody reads any more
  } finally {
    rmSync(paths.reply, { force: true });
  }
  let result: string | undefined;
  let leave: (() => void) | undefined;
  let outcome: RequestOutcome = 'skipped';
  try {
    if (!req) return 'skipped';
    if (req.version !== self.version || !self.current()) {
      writeAll(fd, `${REPLY_STALE}\n`);
      return (outcome = 'stale');
    }
    writeAll(fd, `${REPLY_ACCEPTED}\n`);
    faultPoint('after-accept');
    const inv = parseDriverArgs(req.args);
    leave = enter(req.cwd, req.env);
    result = resultPath(resolve(req.cwd, inv.ours));
    rmSync(result, { force: true });
    copyFileSync(inv.ours, result, constants.COPYFILE_EXCL);
    chmodSync(result, 0o600);
    let stderr = '';
    const status = mergeInvocation({ ...inv, ours: result }, process.env, (t) => {
      stderr += t;
    });
    faultPoint('after-merge');
    writeAll(fd, formatReply(status, stderr));
    outcome = 'merged';
    faultPoint('after-status');
    renameSync(result, resolve(req.cwd, inv.ours));
    faultPoint('after-rename');
    writeAll(fd, `${REPLY_DONE}\n`);
  } catch {
    // No answer, or half of one: the line merges directly, from %A as git wrote it.
    if (result !== undefined && outcome !== 'merged') rmSync(result, { force: true });
  } finally {
    leave?.();
    closeSync(fd);
  }
  return outcome;
}
